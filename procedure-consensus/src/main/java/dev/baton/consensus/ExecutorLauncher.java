package dev.baton.consensus;

import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.Fence;
import dev.baton.procedure.ProcedureExecutor;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.ratis.server.DivisionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Launches the executor incarnations of a leader's terms, on the {@link LeadershipManager}'s
 * lifecycle thread and under its lock: opens a new epoch of the term through a {@code Fence} entry
 * when an earlier incarnation of the same term existed, builds the Raft-backed store stamped with
 * term and epoch and an executor on it, starts it, and adopts the submissions applied meanwhile. An
 * incarnation that fails to launch, or stops by itself later, is replaced after a backoff ({@link
 * RelaunchStreak}); a leader that cannot keep one running hands leadership away ({@link
 * LeadershipYield}).
 */
final class ExecutorLauncher<Env> {

  /** A built, not yet started executor and the store it writes through. */
  record Incarnation<Env>(RaftProcedureStore store, ProcedureExecutor<Env> executor) {}

  private static final Logger LOG = LoggerFactory.getLogger(ExecutorLauncher.class);

  private final ProcedureNode<Env> node;
  private final LeadershipManager<Env> manager;

  ExecutorLauncher(ProcedureNode<Env> node, LeadershipManager<Env> manager) {
    this.node = node;
    this.manager = manager;
  }

  /**
   * On the lifecycle thread: launches an executor incarnation of the term (every one after the
   * first behind a fence, see {@link ExecutorLauncher#fence}), then adopts the submissions applied
   * while no executor ran. A failed launch is tried again later ({@link #relaunchLater}).
   */
  void launch(LeaderTerm<Env> t) {
    long launchedAt = System.currentTimeMillis();
    Optional<DivisionInfo> info = node.division().map(d -> d.getInfo());
    if (info.isEmpty() || !info.get().isLeader() || info.get().getCurrentTerm() != t.term) {
      manager.stepDownIfCurrent(t, "not leader of term " + t.term + " any more");
      return;
    }
    boolean fence;
    long recoveringSince;
    synchronized (manager) {
      if (t.abandoned || manager.current != t) {
        return;
      }
      fence = t.launches++ > 0;
      recoveringSince = t.recoveringSince;
    }
    AtomicReference<ProcedureExecutor<Env>> self = new AtomicReference<>();
    ExecutorLauncher.Incarnation<Env> inc;
    long epoch = 0;
    long builtFrom = launchedAt;
    try {
      if (fence) {
        epoch = fence(t.term);
      }
      builtFrom = System.currentTimeMillis();
      inc = build(t.term, epoch, cause -> executorFailed(t, self.get(), cause));
    } catch (IOException | RuntimeException e) {
      relaunchLater(t, e);
      return;
    }
    ProcedureExecutor<Env> executor = inc.executor();
    self.set(executor);
    synchronized (manager) {
      if (t.abandoned) {
        return;
      }
      t.store = inc.store();
      t.executor = executor;
      t.epoch = epoch;
    }
    long startedFrom = System.currentTimeMillis();
    try {
      executor.start();
    } catch (Exception e) {
      executor.stop();
      if (manager.release(t, executor)) {
        relaunchLater(t, e);
      }
      return;
    }
    List<LeaderTerm.Adoption> backlog = List.of();
    CompletableFuture<Void> running = null;
    synchronized (manager) {
      if (!t.abandoned) {
        if (t.executor != executor) {
          return; // it already stopped by itself; executorFailed launches the next one
        }
        backlog = new ArrayList<>(t.pending);
        t.pending.clear();
        t.streak.running(System.currentTimeMillis());
        manager.setRole(NodeRole.LEADER_RUNNING);
        manager.runningStore = inc.store();
        running = t.running;
      }
    }
    if (running == null) {
      // abandoned meanwhile; stopping waits for the workers, so never under the manager's lock
      executor.stop();
      return;
    }
    long loadedIndex = inc.store().loadedIndex();
    for (LeaderTerm.Adoption a : backlog) {
      if (a.index() > loadedIndex) {
        manager.adoptions.adoptNow(executor, a.record());
      }
    }
    long runningAt = System.currentTimeMillis();
    long loadMs = TimeUnit.NANOSECONDS.toMillis(inc.store().loadNanos());
    LeadershipManager.Phases phases =
        new LeadershipManager.Phases(
            builtFrom - recoveringSince,
            startedFrom - builtFrom,
            loadMs,
            Math.max(0, runningAt - startedFrom - loadMs));
    LeadershipManager.Recovery r =
        new LeadershipManager.Recovery(
            t.term, executor.liveCount(), recoveringSince, runningAt, phases);
    manager.lastRecovery = r;
    running.complete(null);
    LOG.info(
        "Node {} runs the executor of term {} (epoch {}): {} live procedures rebuilt in {} ms ({})",
        node.nodeId(),
        t.term,
        epoch,
        r.procedures(),
        r.rebuildTime().toMillis(),
        phases);
  }

  /**
   * The executor of a term stopped by itself (a store write failed) while this node may still lead:
   * back to {@link NodeRole#LEADER_RECOVERING} and launch a new incarnation. Called on the
   * executor's fail-stop thread once it has fully stopped.
   */
  private void executorFailed(LeaderTerm<Env> t, ProcedureExecutor<Env> executor, Throwable cause) {
    if (executor == null || !manager.release(t, executor)) {
      return;
    }
    LOG.warn(
        "Node {}: the executor of term {} stopped by itself ({}); launching a new one",
        node.nodeId(),
        t.term,
        cause.toString());
    relaunchLater(t, cause);
  }

  /**
   * Launches the term's next incarnation after a failure: at once after the first failure of a
   * streak, then with a doubling backoff; once the streak is older than the give-up bound, also
   * asks Ratis to hand leadership to another node. A streak ends when an incarnation ran for longer
   * than the bound.
   */
  private void relaunchLater(LeaderTerm<Env> t, Throwable cause) {
    RelaunchStreak.Next next;
    synchronized (manager) {
      if (manager.current != t || t.abandoned) {
        return;
      }
      next = t.streak.failed(System.currentTimeMillis());
    }
    LOG.warn(
        "Node {}: executor of term {} not running ({}); attempt {} in {} ms",
        node.nodeId(),
        t.term,
        cause.toString(),
        next.attempt(),
        next.delayMillis());
    if (next.handOver()) {
      LeadershipYield.yieldLeadership(
              node,
              "no executor of term "
                  + t.term
                  + " ran for "
                  + node.executorSettings().relaunchGiveUp())
          .whenComplete(
              (ok, error) -> {
                synchronized (manager) {
                  t.streak.handOverDone();
                }
              });
    }
    try {
      CompletableFuture.delayedExecutor(
              next.delayMillis(), TimeUnit.MILLISECONDS, manager.lifecycle)
          .execute(() -> launch(t));
    } catch (RejectedExecutionException shutDown) {
      // the node is closing
    }
  }

  /**
   * Appends a {@code Fence} of {@code term} and waits until it is applied here; returns the epoch
   * it opened. Every store write of an earlier epoch of the term that lands after it is rejected,
   * and every one that landed before it is in the table an executor loads afterwards.
   *
   * @throws IOException if the fence was not applied within the request timeout, or was refused
   *     (the node no longer leads {@code term})
   */
  long fence(long term) throws IOException {
    LocalSubmitter raft = node.localSubmitter();
    if (raft == null) {
      throw new NotLeaderException("node " + node.nodeId() + " is not started");
    }
    Duration timeout = node.executorSettings().requestTimeout();
    Command command = Command.newBuilder().setFence(Fence.newBuilder().setTerm(term)).build();
    CommandReply reply;
    try {
      reply = raft.submit(command).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while fencing term " + term);
    } catch (TimeoutException e) {
      throw new IOException("executor fence of term " + term + " not applied within " + timeout, e);
    } catch (ExecutionException e) {
      throw new IOException("executor fence of term " + term + " failed: " + e.getCause(), e);
    }
    if (reply.getKindCase() != CommandReply.KindCase.EPOCH) {
      throw new NotLeaderException(
          "executor fence of term " + term + " refused: " + reply.getRejected());
    }
    return reply.getEpoch();
  }

  /**
   * Builds the store and the executor of one incarnation; {@code onFailStop} hears if the executor
   * stops by itself.
   *
   * @throws RuntimeException if the application's environment or executor settings fail
   */
  Incarnation<Env> build(long term, long epoch, Consumer<Throwable> onFailStop) {
    RaftProcedureStore store =
        new RaftProcedureStore(
            node.stateMachine(),
            node.localSubmitter(),
            term,
            epoch,
            node.executorSettings().batchLimits(),
            ConsensusWaits.STORE_WRITE_TIMEOUT,
            node::isLeader,
            "procedure store of " + node.nodeId());
    LeaderContext leader = new LeaderContext(node.nodeId(), term, epoch);
    ProcedureExecutor.Builder<Env> b =
        node.executorSettings().executorBuilder(leader, store).onFailStop(onFailStop);
    return new Incarnation<>(store, b.build());
  }
}
