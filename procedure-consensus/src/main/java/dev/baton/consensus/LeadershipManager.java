package dev.baton.consensus;

import dev.baton.consensus.proto.ActionResult;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.OperatorActionEntry;
import dev.baton.procedure.ActionPlan;
import dev.baton.procedure.OperatorAction;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one executor per leadership term of a {@link ProcedureNode}: the glue between Ratis'
 * callbacks, the {@link LeaderRoleMachine} that decides the role transitions, and the I/O its
 * actions ask for. Each callback or outcome becomes a {@link LeaderEvent}, stepped under this
 * manager's lock together with the quick part of the answered {@link LeaderAction}s (fields of this
 * glue); their slow part (fencing, building, starting and stopping executors) runs after, on one
 * lifecycle thread, so Ratis' threads are never blocked.
 *
 * <p>A term begins when Ratis says this node is the ready leader, and is abandoned when leadership
 * goes: the abandoned term's store fails every write at once and its executor is stopped on the
 * lifecycle thread. A new term always builds a new executor from the replicated table; nothing of
 * an earlier term is reused.
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
 * leadership to another node ({@link LeadershipYield}).
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
   * Where a recovery that has not finished stands, for an operator or a test that waits for it.
   *
   * @param stage {@code AWAITING_READY} while Ratis has not applied the term's first entry (the
   *     node was elected but is not the ready leader yet), else the {@link LeaderRoleMachine.Stage}
   *     of the term's current launch
   * @param sinceMillis wall-clock time the node entered {@link NodeRole#LEADER_RECOVERING}
   */
  public record RecoveryProgress(String stage, long sinceMillis) {
    /** The stage of a node elected whose term Ratis has not readied yet. */
    public static final String AWAITING_READY = "AWAITING_READY";
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

  /**
   * How long an elected node may go without becoming ready and without applying any entry before it
   * hands leadership to another node: longer than any pause of a healthy apply, short against the
   * time a stuck leader would hold the group.
   */
  public static final Duration DEFAULT_UNREADY_PATIENCE = Duration.ofSeconds(15);

  private final String nodeId;
  private final LeaderRoleMachine machine;
  private final ExecutorLauncher<Env> launcher;
  private final Supplier<OptionalLong> ratisLeaderTerm;
  private final LongSupplier appliedIndex;
  private final Function<String, CompletableFuture<Boolean>> yielder;
  private final Supplier<LocalSubmitter> submitter;
  private final ExecutorService lifecycle;
  private final Adoptions adoptions;
  private final RoleNotifier roles;
  private volatile NodeRole role = NodeRole.FOLLOWER;

  /** Wall-clock time {@link #role} last changed. */
  private long roleSinceMillis = System.currentTimeMillis();

  /** The store of the executor running here as leader; null when none runs. */
  private volatile RaftProcedureStore runningStore;

  /** What this glue keeps of the machine's current term; null without one. */
  private LeaderTerm<Env> current;

  private volatile Recovery lastRecovery;

  /**
   * @param launcher builds and fences executor incarnations
   * @param ratisLeaderTerm the term Ratis says this node leads now, empty if it does not lead
   * @param appliedIndex the index of the last log entry this node applied
   * @param yielder asks Ratis to hand leadership to another node, given why
   * @param submitter the node's in-process submitter (null before the node started)
   * @param relaunch how failed executors are relaunched
   * @param roles tells the role listeners
   */
  LeadershipManager(
      String nodeId,
      ExecutorLauncher<Env> launcher,
      Supplier<OptionalLong> ratisLeaderTerm,
      LongSupplier appliedIndex,
      Function<String, CompletableFuture<Boolean>> yielder,
      Supplier<LocalSubmitter> submitter,
      LeaderExecutorSettings<Env> relaunch,
      RoleNotifier roles) {
    this.nodeId = nodeId;
    this.launcher = launcher;
    this.ratisLeaderTerm = ratisLeaderTerm;
    this.appliedIndex = appliedIndex;
    this.yielder = yielder;
    this.submitter = submitter;
    this.roles = roles;
    this.machine =
        new LeaderRoleMachine(
            relaunch.relaunchBackoff(),
            ConsensusWaits.MAX_RELAUNCH_BACKOFF,
            relaunch.relaunchGiveUp(),
            relaunch.unreadyPatience());
    this.adoptions = new Adoptions(nodeId);
    this.lifecycle = Executors.newSingleThreadExecutor(daemon("baton-" + nodeId + "-leadership"));
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

  /** The store of the executor running here as leader, if one runs. */
  Optional<RaftProcedureStore> runningStore() {
    return Optional.ofNullable(runningStore);
  }

  Optional<Recovery> lastRecovery() {
    return Optional.ofNullable(lastRecovery);
  }

  synchronized Optional<ProcedureExecutor<Env>> executor() {
    LeaderTerm<Env> t = current;
    return t != null && role == NodeRole.LEADER_RUNNING
        ? Optional.ofNullable(t.executor())
        : Optional.empty();
  }

  /** Where this node's recovery stands while it is {@link NodeRole#LEADER_RECOVERING}. */
  synchronized Optional<RecoveryProgress> recoveryProgress() {
    if (role != NodeRole.LEADER_RECOVERING) {
      return Optional.empty();
    }
    LeaderRoleMachine.Stage stage = machine.stage();
    return Optional.of(
        new RecoveryProgress(
            stage == null ? RecoveryProgress.AWAITING_READY : stage.name(), roleSinceMillis));
  }

  synchronized Optional<LeaderContext> context() {
    OptionalLong term = machine.term();
    return term.isEmpty()
        ? Optional.empty()
        : Optional.of(new LeaderContext(nodeId, term.getAsLong(), machine.epoch()));
  }

  @Override
  public void leaderChanged(boolean self) {
    feed(
        self
            ? new LeaderEvent.BecameLeader(System.currentTimeMillis(), appliedIndex.getAsLong())
            : new LeaderEvent.SteppedDown("another node leads now"));
  }

  @Override
  public void leaderReady() {
    OptionalLong term = ratisLeaderTerm.get();
    if (term.isPresent()) {
      feed(new LeaderEvent.LeaderReady(term.getAsLong(), System.currentTimeMillis()));
    }
  }

  @Override
  public void notLeader() {
    feed(new LeaderEvent.SteppedDown("leadership lost"));
  }

  @Override
  public void submitted(long index, StoreRecord record) {
    ProcedureExecutor<Env> adopter;
    synchronized (this) {
      LeaderTerm<Env> t = current;
      if (t == null) {
        return;
      }
      if (t.executor() == null || role != NodeRole.LEADER_RUNNING) {
        t.park(new LeaderTerm.Adoption(index, record));
        return;
      }
      adopter = t.executor();
    }
    adoptions.adoptLater(adopter, record);
  }

  @Override
  public CompletableFuture<Boolean> abortRequested(long procId) {
    return whenRunning(e -> e.abort(procId));
  }

  @Override
  public CompletableFuture<ActionResult> actionRequested(long index, OperatorActionEntry entry) {
    OperatorAction action = OperatorAction.ofLabel(entry.getAction()).orElseThrow();
    CompletableFuture<ActionResult> outcome =
        whenRunning(
            e -> {
              ActionPlan plan =
                  e.act(action, entry.getProcId(), entry.getRecursive(), entry.getReason());
              return ActionResult.newBuilder()
                  .setIndex(index)
                  .setRefused(!plan.allowed())
                  .setOutcome(plan.allowed() ? plan.effect() : plan.refusal())
                  .build();
            });
    if (outcome == null) {
      return null; // not the leader: the leader's executor carries it out
    }
    // the outcome joins the replicated audit trail through an entry of its own
    outcome
        .thenCompose(r -> submitter.get().submit(Command.newBuilder().setActionResult(r).build()))
        .exceptionally(
            error -> {
              LOG.warn(
                  "Node {}: the outcome of the operator action at index {} was not recorded: {}",
                  nodeId,
                  index,
                  error.toString());
              return null;
            });
    return outcome;
  }

  /**
   * The answer of the term's executor once it runs (while recovering, the answer waits for it),
   * computed after every submission applied before was adopted; null if this node does not lead.
   */
  private <T> CompletableFuture<T> whenRunning(Function<ProcedureExecutor<Env>, T> answer) {
    LeaderTerm<Env> t;
    CompletableFuture<Void> running;
    synchronized (this) {
      t = current;
      if (t == null) {
        return null; // not the leader: the leader's executor decides
      }
      running = t.running();
    }
    return adoptions.after(
        running,
        () -> {
          ProcedureExecutor<Env> e;
          synchronized (this) {
            e = t.executor();
          }
          if (e == null || !e.isRunning()) {
            throw new CompletionException(
                new NotLeaderException("the executor of term " + t.term() + " stopped"));
          }
          return answer.apply(e);
        });
  }

  /** Stops any executor and refuses new terms; waits for the lifecycle thread. */
  void shutdown() {
    long start = System.nanoTime();
    OptionalLong term;
    synchronized (this) {
      term = machine.term();
    }
    feed(new LeaderEvent.Shutdown());
    lifecycle.shutdown();
    adoptions.shutdown();
    roles.shutdown();
    try {
      if (!lifecycle.awaitTermination(
          ConsensusWaits.EXECUTOR_SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn(
            "Node {}: the leader executor did not stop within {}",
            nodeId,
            ConsensusWaits.EXECUTOR_SHUTDOWN_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (term.isPresent()) {
      LOG.info(
          "Node {}: executor of term {} stopped in {} ms for the node's close",
          nodeId,
          term.getAsLong(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }
  }

  private void feed(LeaderEvent event) {
    feed(event, null);
  }

  /**
   * Steps the machine and carries out its actions: their quick part (fields of this glue) under
   * this manager's lock, together with the step, the slow part (I/O, threads) after it.
   *
   * @param subject the executor a {@link LeaderEvent.Started} event is about (else null)
   */
  private void feed(LeaderEvent event, ProcedureExecutor<Env> subject) {
    List<Runnable> effects = new ArrayList<>();
    synchronized (this) {
      for (LeaderAction action : machine.on(event)) {
        Runnable effect = apply(action, subject);
        if (effect != null) {
          effects.add(effect);
        }
      }
    }
    for (Runnable effect : effects) {
      effect.run();
    }
  }

  /** The quick part of {@code action}, under the lock; returns its slow part, if any. */
  private Runnable apply(LeaderAction action, ProcedureExecutor<Env> subject) {
    LeaderTerm<Env> t = current;
    if (action instanceof LeaderAction.ChangeRole a) {
      role = a.role();
      roleSinceMillis = System.currentTimeMillis();
      if (a.role() != NodeRole.LEADER_RUNNING) {
        runningStore = null;
      }
      roles.changed(a.role());
      return null;
    } else if (action instanceof LeaderAction.BeginTerm a) {
      current = new LeaderTerm<>(a.term());
      return () ->
          LOG.info(
              "Node {} is the ready leader of term {} at applied index {}; rebuilding the executor",
              nodeId,
              a.term(),
              appliedIndex.getAsLong());
    } else if (action instanceof LeaderAction.Abandon a) {
      current = null;
      return t == null ? null : abandon(t, a.why());
    } else if (action instanceof LeaderAction.Launch a) {
      return () -> onLifecycle(() -> checkLeadership(a.term()));
    } else if (action instanceof LeaderAction.AppendFence a) {
      return () -> fence(a);
    } else if (action instanceof LeaderAction.Build a) {
      return () -> build(t, a);
    } else if (action instanceof LeaderAction.Start a) {
      ProcedureExecutor<Env> executor = t.attachBuilt();
      return () -> start(t, a, executor);
    } else if (action instanceof LeaderAction.Running a) {
      runningStore = t.store();
      List<LeaderTerm.Adoption> backlog = t.drainPending();
      RaftProcedureStore store = t.store();
      ProcedureExecutor<Env> executor = t.executor();
      CompletableFuture<Void> running = t.running();
      long buildFrom = t.buildFrom();
      long startFrom = t.startFrom();
      return () -> {
        long loadedIndex = store.loadedIndex();
        for (LeaderTerm.Adoption adoption : backlog) {
          if (adoption.index() > loadedIndex) {
            adoptions.adoptNow(executor, adoption.record());
          }
        }
        recovered(a, executor, store, buildFrom, startFrom);
        running.complete(null);
      };
    } else if (action instanceof LeaderAction.Release a) {
      t.release(a.newRecovery());
      return null;
    } else if (action instanceof LeaderAction.StopExecutor) {
      return subject == null ? null : subject::stop;
    } else if (action instanceof LeaderAction.ScheduleRelaunch a) {
      return () -> relaunchLater(a);
    } else if (action instanceof LeaderAction.YieldLeadership a) {
      return () ->
          yielder
              .apply(a.why())
              .whenComplete((ok, error) -> feed(new LeaderEvent.YieldDone(a.term())));
    } else if (action instanceof LeaderAction.ScheduleReadyCheck a) {
      // not on the lifecycle thread: a launch that hangs there must not hold the check back
      return () ->
          CompletableFuture.delayedExecutor(a.delayMillis(), TimeUnit.MILLISECONDS)
              .execute(
                  () ->
                      feed(
                          new LeaderEvent.ReadyCheck(
                              a.watch(), appliedIndex.getAsLong(), System.currentTimeMillis())));
    }
    throw new IllegalArgumentException("unknown leadership action " + action);
  }

  /**
   * Fails the term's store and what waits for its executor at once; stops it on the lifecycle
   * thread.
   */
  private Runnable abandon(LeaderTerm<Env> t, String why) {
    RaftProcedureStore store = t.store();
    CompletableFuture<Void> running = t.running();
    return () -> {
      LOG.info("Node {} stops its executor of term {}: {}", nodeId, t.term(), why);
      if (store != null) {
        store.stop();
      }
      running.completeExceptionally(
          new NotLeaderException("leadership of term " + t.term() + " ended"));
      Runnable stop =
          () -> {
            ProcedureExecutor<Env> e;
            synchronized (this) {
              e = t.executor();
            }
            if (e != null) {
              e.stop();
            }
          };
      try {
        lifecycle.execute(stop);
      } catch (RejectedExecutionException closed) {
        stop.run();
      }
    };
  }

  private void onLifecycle(Runnable task) {
    try {
      lifecycle.execute(task);
    } catch (RejectedExecutionException closed) {
      LOG.debug("Node {}: the node is closing; no launch", nodeId);
    }
  }

  private void checkLeadership(long term) {
    OptionalLong leading = ratisLeaderTerm.get();
    feed(
        new LeaderEvent.LeadershipChecked(
            term, leading.isPresent() && leading.getAsLong() == term));
  }

  private void fence(LeaderAction.AppendFence a) {
    long epoch;
    try {
      epoch = launcher.fence(a.term());
    } catch (IOException | RuntimeException e) {
      feed(new LeaderEvent.Failed(a.term(), a.incarnation(), e, System.currentTimeMillis()));
      return;
    }
    feed(new LeaderEvent.FenceApplied(a.term(), a.incarnation(), epoch));
  }

  private void build(LeaderTerm<Env> t, LeaderAction.Build a) {
    long buildFrom = System.currentTimeMillis();
    ExecutorLauncher.Incarnation<Env> inc;
    try {
      inc =
          launcher.build(
              a.term(),
              a.epoch(),
              cause ->
                  feed(
                      new LeaderEvent.Failed(
                          a.term(), a.incarnation(), cause, System.currentTimeMillis())));
    } catch (RuntimeException e) {
      feed(new LeaderEvent.Failed(a.term(), a.incarnation(), e, System.currentTimeMillis()));
      return;
    }
    synchronized (this) {
      t.built(inc, buildFrom);
    }
    feed(new LeaderEvent.Built(a.term(), a.incarnation(), a.epoch()));
  }

  private void start(LeaderTerm<Env> t, LeaderAction.Start a, ProcedureExecutor<Env> executor) {
    synchronized (this) {
      t.startedAt(System.currentTimeMillis());
    }
    try {
      executor.start();
    } catch (Exception e) {
      executor.stop();
      feed(new LeaderEvent.Failed(a.term(), a.incarnation(), e, System.currentTimeMillis()));
      return;
    }
    feed(new LeaderEvent.Started(a.term(), a.incarnation(), System.currentTimeMillis()), executor);
  }

  /** Records and logs the recovery that ended with the incarnation of {@code a} running. */
  private void recovered(
      LeaderAction.Running a,
      ProcedureExecutor<Env> executor,
      RaftProcedureStore store,
      long buildFrom,
      long startFrom) {
    long runningAt = System.currentTimeMillis();
    long loadMs = TimeUnit.NANOSECONDS.toMillis(store.loadNanos());
    Phases phases =
        new Phases(
            buildFrom - a.recoveringSince(),
            startFrom - buildFrom,
            loadMs,
            Math.max(0, runningAt - startFrom - loadMs));
    Recovery r =
        new Recovery(a.term(), executor.liveCount(), a.recoveringSince(), runningAt, phases);
    lastRecovery = r;
    LOG.info(
        "Node {} runs the executor of term {} (epoch {}): {} live procedures rebuilt in {} ms ({})",
        nodeId,
        a.term(),
        store.epoch(),
        r.procedures(),
        r.rebuildTime().toMillis(),
        phases);
  }

  /**
   * Launches the term's next incarnation after a failure, after the machine's pause (at once after
   * the first failure of a streak, then doubling).
   */
  private void relaunchLater(LeaderAction.ScheduleRelaunch a) {
    LOG.warn(
        "Node {}: executor of term {} not running ({}); attempt {} in {} ms",
        nodeId,
        a.term(),
        a.cause().toString(),
        a.attempt(),
        a.delayMillis());
    try {
      CompletableFuture.delayedExecutor(a.delayMillis(), TimeUnit.MILLISECONDS, lifecycle)
          .execute(() -> feed(new LeaderEvent.RelaunchDue(a.term())));
    } catch (RejectedExecutionException shutDown) {
      // the node is closing
    }
  }
}
