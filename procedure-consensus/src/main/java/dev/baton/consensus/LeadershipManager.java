package dev.baton.consensus;

import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.store.StoreRecord;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
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
 *
 * <p>An executor can also stop by itself while the node stays leader (a store write failed or timed
 * out, e.g. while a majority stalled). The manager hears it ({@link
 * ProcedureExecutor.Builder#onFailStop}), goes back to {@link NodeRole#LEADER_RECOVERING} and
 * launches a new incarnation in the same term once the failed one has fully stopped. Both have the
 * same term, so the term check cannot keep a late write of the failed one out of the table the new
 * one reads: the new incarnation first appends a {@code Fence} entry that opens a new epoch of the
 * term, and loads the table only once the fence is applied. Every write the failed incarnation
 * handed to Ratis is then either before the fence in the log (applied, so in the loaded table) or
 * after it (rejected: stale epoch). Failed launches are retried with a doubling backoff; after
 * {@link #DEFAULT_RELAUNCH_GIVE_UP} (configurable) without a running executor the node also hands
 * leadership to another node ({@link LeadershipYield}). The launch protocol itself is in {@link
 * ExecutorLauncher}; this class holds the state (role, current term) it runs under.
 */
public final class LeadershipManager<Env> implements ProcedureStateMachine.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(LeadershipManager.class);

  /**
   * One recovery of a leader executor.
   *
   * @param term the leader term
   * @param procedures live and retained procedures rebuilt from the table
   * @param startedAtMillis wall-clock time the recovery began: Ratis reported the node ready as
   *     leader, or, for a relaunch in the same term, the previous executor of the term stopped
   * @param runningAtMillis wall-clock time the executor started running
   * @param phases where the time between the two went
   */
  public record Recovery(
      long term, int procedures, long startedAtMillis, long runningAtMillis, Phases phases) {
    public Duration rebuildTime() {
      return Duration.ofMillis(runningAtMillis - startedAtMillis);
    }
  }

  /**
   * The parts of a recovery, in order (wall-clock milliseconds).
   *
   * @param queued from the recovery's start until the launch began on the lifecycle thread (a
   *     relaunch's backoff and fence included)
   * @param build creating the store, the environment and the executor
   * @param load copying the replicated table (under the state machine's lock)
   * @param rebuild the executor's start after the load: decoding records, rollback stacks, locks,
   *     queues
   */
  public record Phases(long queued, long build, long load, long rebuild) {
    @Override
    public String toString() {
      return "queued "
          + queued
          + " ms, build "
          + build
          + " ms, load "
          + load
          + " ms, rebuild "
          + rebuild
          + " ms";
    }
  }

  /** First pause before relaunching an executor whose launch failed; doubles per failure. */
  public static final Duration DEFAULT_RELAUNCH_BACKOFF = Duration.ofMillis(200);

  /**
   * How long a leader keeps relaunching failed executors before it hands leadership to another node
   * (it keeps relaunching meanwhile, and asks again after each further failure).
   */
  public static final Duration DEFAULT_RELAUNCH_GIVE_UP = Duration.ofSeconds(15);

  private final ProcedureNode<Env> node;
  private final ExecutorLauncher<Env> launcher;
  final ExecutorService lifecycle;

  final Adoptions adoptions;

  private final Duration relaunchBackoff;
  private final Duration relaunchGiveUp;
  private final RoleNotifier roles;
  private volatile NodeRole role = NodeRole.FOLLOWER;

  /** The store of the executor running here as leader; null when none runs. */
  volatile RaftProcedureStore runningStore;

  LeaderTerm<Env> current;
  volatile Recovery lastRecovery;
  private boolean shutdown;

  LeadershipManager(ProcedureNode<Env> node, RoleNotifier roles) {
    this.node = node;
    this.roles = roles;
    this.launcher = new ExecutorLauncher<>(node, this);
    this.relaunchBackoff = node.executorSettings().relaunchBackoff();
    this.relaunchGiveUp = node.executorSettings().relaunchGiveUp();
    this.adoptions = new Adoptions(node.nodeId());
    this.lifecycle =
        Executors.newSingleThreadExecutor(daemon("baton-" + node.nodeId() + "-leadership"));
  }

  /** Threads of one node's leadership: named, and daemons (they never keep a JVM alive). */
  static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  NodeRole role() {
    return role;
  }

  /** Sets the role under this manager's lock, so listeners hear the changes in their order. */
  synchronized void setRole(NodeRole next) {
    role = next;
    roles.changed(next);
  }

  Optional<Recovery> lastRecovery() {
    return Optional.ofNullable(lastRecovery);
  }

  synchronized Optional<ProcedureExecutor<Env>> executor() {
    LeaderTerm<Env> t = current;
    return t != null && role == NodeRole.LEADER_RUNNING
        ? Optional.ofNullable(t.executor)
        : Optional.empty();
  }

  synchronized Optional<LeaderContext> context() {
    LeaderTerm<Env> t = current;
    return t == null
        ? Optional.empty()
        : Optional.of(new LeaderContext(node.nodeId(), t.term, t.epoch));
  }

  @Override
  public void leaderChanged(boolean self) {
    if (!self) {
      stepDown("another node leads now");
    } else {
      synchronized (this) {
        if (current == null && !shutdown) {
          setRole(NodeRole.LEADER_RECOVERING);
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
    LeaderTerm<Env> next =
        new LeaderTerm<>(
            term,
            System.currentTimeMillis(),
            new RelaunchStreak(
                relaunchBackoff, ConsensusWaits.MAX_RELAUNCH_BACKOFF, relaunchGiveUp));
    LeaderTerm<Env> previous;
    synchronized (this) {
      if (shutdown) {
        return;
      }
      previous = current;
      current = next;
      setRole(NodeRole.LEADER_RECOVERING);
      runningStore = null;
    }
    if (previous != null) {
      abandon(previous);
    }
    LOG.info(
        "Node {} is the ready leader of term {}; rebuilding the executor", node.nodeId(), term);
    lifecycle.execute(() -> launcher.launch(next));
  }

  @Override
  public void notLeader() {
    stepDown("leadership lost");
  }

  @Override
  public void submitted(long index, StoreRecord record) {
    ProcedureExecutor<Env> adopter;
    synchronized (this) {
      LeaderTerm<Env> t = current;
      if (t == null) {
        return;
      }
      if (t.executor == null || role != NodeRole.LEADER_RUNNING) {
        t.pending.add(new LeaderTerm.Adoption(index, record));
        return;
      }
      adopter = t.executor;
    }
    adoptions.adoptLater(adopter, record);
  }

  @Override
  public CompletableFuture<Boolean> abortRequested(long procId) {
    LeaderTerm<Env> t;
    CompletableFuture<Void> running;
    synchronized (this) {
      t = current;
      running = t == null ? null : t.running;
    }
    if (t == null) {
      return null; // not the leader: the leader's executor decides
    }
    // while recovering, the decision waits for the executor; either way it is made after every
    // submission applied before the abort was adopted
    return adoptions.after(
        running,
        () -> {
          ProcedureExecutor<Env> e;
          synchronized (this) {
            e = t.executor;
          }
          if (e == null || !e.isRunning()) {
            throw new CompletionException(
                new NotLeaderException("the executor of term " + t.term + " stopped"));
          }
          return e.abort(procId);
        });
  }

  /** Stops any executor and refuses new terms; waits for the lifecycle thread. */
  void shutdown() {
    long start = System.nanoTime();
    LeaderTerm<Env> t;
    synchronized (this) {
      shutdown = true;
      t = current;
      current = null;
      setRole(NodeRole.FOLLOWER);
      runningStore = null;
    }
    if (t != null) {
      abandon(t);
    }
    lifecycle.shutdown();
    adoptions.shutdown();
    roles.shutdown();
    try {
      if (!lifecycle.awaitTermination(
          ConsensusWaits.EXECUTOR_SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn(
            "Node {}: the leader executor did not stop within {}",
            node.nodeId(),
            ConsensusWaits.EXECUTOR_SHUTDOWN_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t != null) {
      LOG.info(
          "Node {}: executor of term {} stopped in {} ms for the node's close",
          node.nodeId(),
          t.term,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }
  }

  private void stepDown(String why) {
    LeaderTerm<Env> t;
    synchronized (this) {
      t = current;
      current = null;
      setRole(NodeRole.FOLLOWER);
      runningStore = null;
    }
    if (t != null) {
      LOG.info("Node {} stops its executor of term {}: {}", node.nodeId(), t.term, why);
      abandon(t);
    }
  }

  /** Fails the term's store at once; its executor stops on the lifecycle thread. */
  private void abandon(LeaderTerm<Env> t) {
    RaftProcedureStore store;
    synchronized (this) {
      t.abandoned = true;
      store = t.store;
    }
    if (store != null) {
      store.stop();
    }
    CompletableFuture<Void> running;
    synchronized (this) {
      running = t.running;
    }
    running.completeExceptionally(
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
    } catch (RejectedExecutionException closed) {
      ProcedureExecutor<Env> e = t.executor;
      if (e != null) {
        e.stop();
      }
    }
  }

  /**
   * Detaches a failed incarnation from its term (role {@link NodeRole#LEADER_RECOVERING}); false if
   * it is not the term's current one any more (already released, or leadership ended).
   */
  synchronized boolean release(LeaderTerm<Env> t, ProcedureExecutor<Env> executor) {
    if (current != t || t.abandoned || t.executor != executor) {
      return false;
    }
    t.executor = null;
    t.store = null;
    setRole(NodeRole.LEADER_RECOVERING);
    runningStore = null;
    if (t.running.isDone()) { // it ran: a new recovery begins now
      t.running = new CompletableFuture<>();
      t.recoveringSince = System.currentTimeMillis();
    }
    return true;
  }

  void stepDownIfCurrent(LeaderTerm<Env> t, String why) {
    synchronized (this) {
      if (current != t) {
        return;
      }
    }
    stepDown(why);
  }
}
