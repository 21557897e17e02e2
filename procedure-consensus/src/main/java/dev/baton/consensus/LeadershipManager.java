package dev.baton.consensus;

import dev.baton.procedure.ProcedureCodecException;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.store.StoreRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.server.DivisionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one executor per leadership term of a {@link ProcedureNode}, reacting to Ratis' callbacks
 * without ever blocking them: the callbacks only change fields under a lock and hand the slow work
 * (building, starting and stopping executors) to one lifecycle thread.
 *
 * <p>A {@link LeaderTerm} is created when Ratis says this node is the ready leader, and abandoned
 * when leadership goes; an abandoned term's store fails every write at once and its executor is
 * stopped on the lifecycle thread. A new term always builds a new executor from the replicated
 * table; nothing of an earlier term is reused.
 */
public final class LeadershipManager<Env> implements ProcedureStateMachine.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(LeadershipManager.class);

  /** How long shutdown waits for the lifecycle thread to stop the executor. */
  static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(30);

  /**
   * One recovery of a leader executor.
   *
   * @param term the leader term
   * @param procedures live and retained procedures rebuilt from the table
   * @param readyAtMillis wall-clock time Ratis reported the node ready as leader
   * @param runningAtMillis wall-clock time the executor started running
   */
  public record Recovery(long term, int procedures, long readyAtMillis, long runningAtMillis) {
    public Duration rebuildTime() {
      return Duration.ofMillis(runningAtMillis - readyAtMillis);
    }
  }

  /** State of one leadership term; guarded by the manager's monitor. */
  private final class LeaderTerm {
    final long term;
    final long readyAt;
    final List<Adoption> pending = new ArrayList<>();
    final CompletableFuture<Void> running = new CompletableFuture<>();
    RaftProcedureStore store;
    ProcedureExecutor<Env> executor;
    boolean abandoned;

    LeaderTerm(long term, long readyAt) {
      this.term = term;
      this.readyAt = readyAt;
    }
  }

  private record Adoption(long index, StoreRecord record) {}

  private final ProcedureNode<Env> node;
  private final ExecutorService lifecycle;
  private volatile NodeRole role = NodeRole.FOLLOWER;
  private LeaderTerm current;
  private volatile Recovery lastRecovery;
  private boolean shutdown;

  LeadershipManager(ProcedureNode<Env> node) {
    this.node = node;
    this.lifecycle =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "baton-" + node.nodeId() + "-leadership");
              t.setDaemon(true);
              return t;
            });
  }

  NodeRole role() {
    return role;
  }

  Optional<Recovery> lastRecovery() {
    return Optional.ofNullable(lastRecovery);
  }

  synchronized Optional<ProcedureExecutor<Env>> executor() {
    LeaderTerm t = current;
    return t != null && role == NodeRole.LEADER_RUNNING
        ? Optional.ofNullable(t.executor)
        : Optional.empty();
  }

  synchronized Optional<LeaderContext> context() {
    LeaderTerm t = current;
    return t == null ? Optional.empty() : Optional.of(new LeaderContext(node.nodeId(), t.term));
  }

  @Override
  public void leaderChanged(boolean self) {
    if (!self) {
      stepDown("another node leads now");
    } else {
      synchronized (this) {
        if (current == null && !shutdown) {
          role = NodeRole.LEADER_RECOVERING;
        }
      }
    }
  }

  @Override
  public void leaderReady() {
    Optional<DivisionInfo> info = node.division().map(d -> d.getInfo());
    if (info.isEmpty() || !info.get().isLeader()) {
      return;
    }
    long term = info.get().getCurrentTerm();
    LeaderTerm next = new LeaderTerm(term, System.currentTimeMillis());
    LeaderTerm previous;
    synchronized (this) {
      if (shutdown) {
        return;
      }
      previous = current;
      current = next;
      role = NodeRole.LEADER_RECOVERING;
    }
    if (previous != null) {
      abandon(previous);
    }
    LOG.info(
        "Node {} is the ready leader of term {}; rebuilding the executor", node.nodeId(), term);
    lifecycle.execute(() -> recover(next));
  }

  @Override
  public void notLeader() {
    stepDown("leadership lost");
  }

  @Override
  public void submitted(long index, StoreRecord record) {
    ProcedureExecutor<Env> adopter;
    synchronized (this) {
      LeaderTerm t = current;
      if (t == null) {
        return;
      }
      if (t.executor == null || role != NodeRole.LEADER_RUNNING) {
        t.pending.add(new Adoption(index, record));
        return;
      }
      adopter = t.executor;
    }
    adopt(adopter, record);
  }

  @Override
  public CompletableFuture<Boolean> abortRequested(long procId) {
    LeaderTerm t;
    synchronized (this) {
      t = current;
    }
    if (t == null) {
      return CompletableFuture.completedFuture(false);
    }
    // while recovering, the abort waits for the executor; its answer goes to the requester
    return t.running.thenApply(
        v -> {
          ProcedureExecutor<Env> e = t.executor;
          return e != null && e.isRunning() && e.abort(procId);
        });
  }

  /** Stops any executor and refuses new terms; waits for the lifecycle thread. */
  void shutdown() {
    LeaderTerm t;
    synchronized (this) {
      shutdown = true;
      t = current;
      current = null;
      role = NodeRole.FOLLOWER;
    }
    if (t != null) {
      abandon(t);
    }
    lifecycle.shutdown();
    try {
      if (!lifecycle.awaitTermination(SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn(
            "Node {}: the leader executor did not stop within {}", node.nodeId(), SHUTDOWN_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void stepDown(String why) {
    LeaderTerm t;
    synchronized (this) {
      t = current;
      current = null;
      role = NodeRole.FOLLOWER;
    }
    if (t != null) {
      LOG.info("Node {} stops its executor of term {}: {}", node.nodeId(), t.term, why);
      abandon(t);
    }
  }

  /** Fails the term's store at once; its executor stops on the lifecycle thread. */
  private void abandon(LeaderTerm t) {
    RaftProcedureStore store;
    synchronized (this) {
      t.abandoned = true;
      store = t.store;
    }
    if (store != null) {
      store.stop();
    }
    t.running.completeExceptionally(
        new NotLeaderException("leadership of term " + t.term + " ended"));
    try {
      lifecycle.execute(
          () -> {
            ProcedureExecutor<Env> e;
            synchronized (this) {
              e = t.executor;
            }
            if (e != null) {
              e.stop();
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      ProcedureExecutor<Env> e = t.executor;
      if (e != null) {
        e.stop();
      }
    }
  }

  /** On the lifecycle thread: builds and starts the executor of a term, then adopts submissions. */
  private void recover(LeaderTerm t) {
    Optional<DivisionInfo> info = node.division().map(d -> d.getInfo());
    if (info.isEmpty() || !info.get().isLeader() || info.get().getCurrentTerm() != t.term) {
      stepDownIfCurrent(t, "not leader of term " + t.term + " any more");
      return;
    }
    LocalSubmitter raft = node.localSubmitter();
    RaftProcedureStore store =
        new RaftProcedureStore(
            node.stateMachine(),
            raft,
            t.term,
            node.batchLimits(),
            RaftProcedureStore.DEFAULT_WRITE_TIMEOUT,
            node::isLeader,
            "procedure store of " + node.nodeId());
    ProcedureExecutor<Env> executor;
    try {
      Env env = node.environment().apply(new LeaderContext(node.nodeId(), t.term));
      ProcedureExecutor.Builder<Env> b =
          ProcedureExecutor.builder(env, store, node.registry()).term(t.term);
      node.tune(b);
      executor = b.build();
    } catch (RuntimeException e) {
      LOG.error("Node {} could not build its executor for term {}", node.nodeId(), t.term, e);
      stepDownIfCurrent(t, "executor could not be built");
      return;
    }
    synchronized (this) {
      if (t.abandoned) {
        return;
      }
      t.store = store;
      t.executor = executor;
    }
    try {
      executor.start();
    } catch (Exception e) {
      boolean abandoned;
      synchronized (this) {
        abandoned = t.abandoned;
      }
      if (!abandoned) {
        LOG.error("Node {} could not start its executor for term {}", node.nodeId(), t.term, e);
      }
      executor.stop();
      return;
    }
    List<Adoption> backlog;
    synchronized (this) {
      if (t.abandoned) {
        executor.stop();
        return;
      }
      backlog = new ArrayList<>(t.pending);
      t.pending.clear();
      role = NodeRole.LEADER_RUNNING;
    }
    long loadedIndex = store.loadedIndex();
    for (Adoption a : backlog) {
      if (a.index() > loadedIndex) {
        adopt(executor, a.record());
      }
    }
    Recovery r = new Recovery(t.term, executor.liveCount(), t.readyAt, System.currentTimeMillis());
    lastRecovery = r;
    t.running.complete(null);
    LOG.info(
        "Node {} runs the executor of term {}: {} live procedures rebuilt in {} ms",
        node.nodeId(),
        t.term,
        r.procedures(),
        r.rebuildTime().toMillis());
  }

  private void adopt(ProcedureExecutor<Env> executor, StoreRecord record) {
    try {
      executor.adopt(record);
    } catch (ProcedureCodecException e) {
      LOG.error(
          "Node {}: submitted procedure {} cannot run: {}",
          node.nodeId(),
          record.procId(),
          e.getMessage());
    } catch (IllegalStateException stopped) {
      // the executor stopped meanwhile; the next leader finds the submission in the table
    }
  }

  private void stepDownIfCurrent(LeaderTerm t, String why) {
    synchronized (this) {
      if (current != t) {
        return;
      }
    }
    stepDown(why);
  }
}
