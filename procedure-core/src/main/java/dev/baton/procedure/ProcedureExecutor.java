package dev.baton.procedure;

import dev.baton.procedure.scheduler.LimitInfo;
import dev.baton.procedure.scheduler.LockCycle;
import dev.baton.procedure.scheduler.LockEnvironment;
import dev.baton.procedure.scheduler.LockInfo;
import dev.baton.procedure.scheduler.LockManager;
import dev.baton.procedure.scheduler.ProcedureLimiter;
import dev.baton.procedure.scheduler.ProcedureScheduler;
import dev.baton.procedure.spi.ExecutorSpi;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Runs procedures: accepts submissions, persists every step through a {@link ProcedureStore}, rolls
 * failed trees back, and rebuilds everything from the store on {@link #start()}.
 *
 * <p>A coordinator of small parts: {@link ExecutorLifecycle} (start, stop, fail-stop), {@link
 * WorkerPool} (workers and stuck monitor), {@link StepRunner} (one step), {@link RollbackRunner}
 * (unwinding root stacks), {@link ProcedureCompletion}, {@link ProcedureRecovery}, {@link
 * TimeoutQueue} and {@link CompletedProcedureRetainer}; its {@link Builder} fills an {@link
 * ExecutorSettings}. An instance runs once: after {@link #stop()}, build a new one on the same
 * store to restart.
 */
public final class ProcedureExecutor<Env> implements AutoCloseable {
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private final ExecutorContext<Env> ctx;
  private final WorkerPool workers;
  private final Submissions<Env> submissions;
  private final ExpiredDeadlines<Env> deadlines;
  private final ExecutorLifecycle<Env> lifecycle;
  private final WaitAnalysis<Env> waits;
  private final OperatorActions<Env> actions;
  private final ExecutorSpi spi = this::adopt;
  private final String name;

  private ProcedureExecutor(ExecutorSettings<Env> s) {
    this.name = "baton-executor-" + INSTANCES.incrementAndGet();
    ExecutorConfig config = s.config();
    this.ctx = s.context(config, this::failStop);
    ProcedureCompletion<Env> completion = new ProcedureCompletion<>(ctx);
    this.submissions = new Submissions<>(ctx);
    this.deadlines = new ExpiredDeadlines<>(ctx);
    StepRunner<Env> runner =
        new StepRunner<>(ctx, completion, new RollbackRunner<>(ctx, completion));
    this.workers = new WorkerPool(name, ctx.scheduler(), runner, config);
    this.waits = new WaitAnalysis<>(ctx, workers);
    this.actions = new OperatorActions<>(ctx);
    TimeoutExecutorThread timeoutThread =
        new TimeoutExecutorThread(name + "-timeout", ctx.timeouts(), deadlines::onTimeout);
    this.lifecycle =
        new ExecutorLifecycle<>(name, ctx, workers, timeoutThread, s.failStopListener());
  }

  public static <Env> Builder<Env> builder(
      Env env, ProcedureStore store, ProcedureRegistry registry) {
    return new Builder<>(env, store, registry);
  }

  /** Recovers from the store, then starts the workers. */
  public void start() throws IOException {
    lifecycle.start();
  }

  /** Stops at once: workers interrupted, no further step starts, the store is stopped. */
  public void stop() {
    lifecycle.stop();
  }

  @Override
  public void close() {
    stop();
  }

  /**
   * The executor's wall clock in epoch milliseconds: the one its record times and deadlines use
   * ({@link Builder#clock}). Procedures that reason about time use it too.
   */
  public long currentTimeMillis() {
    return ctx.now();
  }

  /** Whether the executor runs (started, not stopped, not failed). */
  public boolean isRunning() {
    return lifecycle.isRunning();
  }

  /** Why the executor stopped by itself (a store write failed), or empty. */
  public Optional<Throwable> failure() {
    return lifecycle.failure();
  }

  private void failStop(Throwable cause) {
    lifecycle.failStop(cause);
  }

  public long submit(Procedure<Env> proc) {
    return submit(proc, null);
  }

  /**
   * Persists and queues a root procedure; returns its id. With a nonce, a repeated submission
   * returns the first id for as long as that procedure is live or retained.
   *
   * @throws IllegalArgumentException for an unregistered type or an already submitted procedure
   * @throws IllegalStateException if the executor is not running
   * @throws java.io.UncheckedIOException if the store write failed
   */
  public long submit(Procedure<Env> proc, NonceKey nonce) {
    Objects.requireNonNull(proc, "proc");
    ensureRunning();
    return submissions.submit(proc, nonce);
  }

  /**
   * Like {@link #submit(Procedure, NonceKey)}, without waiting for the store: returns at once, and
   * the future completes with the procId once the submission is durable and queued (exceptionally
   * with an {@link java.io.UncheckedIOException} if the store write failed). Lets one client thread
   * have many submissions in flight, which a group-committing store writes together.
   *
   * @throws IllegalArgumentException for an unregistered type or an already submitted procedure
   * @throws IllegalStateException if the executor is not running
   */
  public java.util.concurrent.CompletableFuture<Long> submitAsync(
      Procedure<Env> proc, NonceKey nonce) {
    Objects.requireNonNull(proc, "proc");
    ensureRunning();
    return submissions.submitAsync(proc, nonce);
  }

  /**
   * What Baton's replication layer (procedure-consensus) uses of this executor beyond the public
   * API; not for applications, no compatibility promised (see {@link dev.baton.procedure.spi}).
   */
  public ExecutorSpi spi() {
    return spi;
  }

  // ExecutorSpi.adopt: a record another node's submission made durable in this executor's store
  private boolean adopt(StoreRecord record) throws ProcedureCodecException {
    ensureRunning();
    return submissions.adopt(record);
  }

  /**
   * Asks a live procedure to abort. If it agrees ({@link Procedure#abort}), it fails with an abort
   * cause at its next turn and its tree rolls back.
   *
   * @return false if the procedure is unknown, finished, or refused
   */
  public boolean abort(long procId) {
    ensureRunning();
    return actions.abort(ctx.procedures().get(procId));
  }

  /**
   * What an operator's {@code action} on a live procedure would change now (procedures and the
   * states they leave, locks released, children reached), or why it is refused; changes nothing.
   *
   * @param recursive for a bypass: also bypass the procedure's unfinished descendants
   */
  public ActionPlan plan(OperatorAction action, long procId, boolean recursive) {
    return actions.plan(action, procId, recursive);
  }

  /**
   * Carries out an operator's {@code action} on a live procedure when {@link #plan} allows it, and
   * answers that plan (refused: nothing changed). The procedures are marked and queued; a worker
   * carries the change out at their next turn (a bypassed procedure running a step ends that step
   * first).
   *
   * @param reason why the operator acts; a force-fail records it as the failure's message
   */
  public ActionPlan act(OperatorAction action, long procId, boolean recursive, String reason) {
    ensureRunning();
    return actions.act(action, procId, recursive, reason);
  }

  /**
   * Ends the wait of a procedure that is suspended (WAITING without children) or in
   * WAITING_TIMEOUT, so it runs again now. Returns false if it is not live.
   */
  public boolean wake(long procId) {
    Procedure<Env> proc = ctx.procedures().get(procId);
    if (proc == null || proc.isFinished()) {
      return false;
    }
    proc.signals().requestWake();
    ctx.scheduler().addFront(proc);
    return true;
  }

  /**
   * The procedure, live or completed within retention (or reported corrupt). A live procedure's
   * info carries what it waits on now ({@link ProcedureInfo#blockedOn()}) and its {@link
   * ProcedureInfo#waitReason() wait reason}.
   */
  public Optional<ProcedureInfo> getInfo(long procId) {
    ProcedureInfo info = ctx.info(procId);
    return Optional.ofNullable(info == null ? null : waits.annotate(info));
  }

  /** Every live, retained and corrupt procedure, by procId, live ones with what they wait on. */
  public List<ProcedureInfo> list() {
    List<ProcedureInfo> all = ctx.allInfos();
    all.replaceAll(waits::annotate);
    return all;
  }

  /**
   * What a live procedure waits on now, as data (see {@link BlockedOn} for the kinds). Empty if it
   * runs a step without a reported call, is finished, or is unknown.
   */
  public Optional<BlockedOn> blockedOn(long procId) {
    Procedure<Env> p = ctx.procedures().get(procId);
    return p == null ? Optional.empty() : Optional.ofNullable(waits.blockedOn(p));
  }

  /**
   * The chain of waits from a procedure to its root cause (lock holder, what that holder waits on,
   * ...), stopping at a cycle. Empty for a procedure unknown here.
   */
  public Optional<WaitChain> why(long procId) {
    return Optional.ofNullable(waits.chain(procId));
  }

  /** How many live procedures are blocked on each {@link BlockedOn#kind() kind} now. */
  public Map<String, Integer> blockedCounts() {
    return waits.blockedCounts();
  }

  /** Wait-for cycles the lock manager found since it was made (see {@link LockManager}). */
  public long deadlockCount() {
    return ctx.admission().locks().deadlockCount();
  }

  /** The wait-for cycles of the lock table now (left in place: none while they are broken). */
  public List<LockCycle> lockCycles() {
    return ctx.admission().locks().cycles();
  }

  /** The last cycles the lock manager found, oldest first, broken or not. */
  public List<LockCycle> recentDeadlocks() {
    return ctx.admission().locks().recentDeadlocks();
  }

  /**
   * Why a live procedure does not run now: the lock it waits for and who holds it, its type's full
   * limit, its pending children, a timed wait or retry backoff (with deadlines). Empty if it is
   * running or queued to run, finished, or unknown.
   */
  public Optional<String> waitReason(long procId) {
    Procedure<Env> p = ctx.procedures().get(procId);
    return p == null
        ? Optional.empty()
        : Optional.ofNullable(waits.waitReason(p, waits.blockedOn(p)));
  }

  /**
   * The lock manager of this executor: procedures reach it through their environment to take
   * resource locks in {@code acquireLock}. The one given to {@link Builder#lockManager}, or a new
   * one.
   */
  public LockManager lockManager() {
    return ctx.admission().locks();
  }

  /** The lock table now: every held or awaited lock with holders and waiters in order. */
  public List<LockInfo> locks() {
    return ctx.admission().locks().snapshot();
  }

  /** The per-type limits now: running, reserved and waiting procedures of each limited type. */
  public List<LimitInfo> limits() {
    return ctx.admission().limiter().snapshot();
  }

  /** Waits until the procedure reached its terminal state. */
  public ProcedureInfo await(long procId, Duration timeout)
      throws TimeoutException, InterruptedException {
    if (ctx.info(procId) == null) {
      throw new IllegalArgumentException("unknown procedure " + procId);
    }
    var future = ctx.finishFuture(procId);
    if (lifecycle.isStopped() && !future.isDone()) {
      throw new IllegalStateException(
          name + " stopped before procedure " + procId + " finished", lifecycle.failureCause());
    }
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "executor stopped before procedure " + procId + " finished", e.getCause());
    }
  }

  /**
   * A future completed when the procedure reaches its terminal state; may be asked before the
   * procedure is known (e.g. right after a replicated submission, before it is adopted). Fails if
   * this executor stops first.
   */
  public java.util.concurrent.CompletableFuture<ProcedureInfo> whenFinished(long procId) {
    return ctx.finishFuture(procId);
  }

  /** The live procedures now: by state, the waiting ones by why, the oldest of each type. */
  public ExecutorCensus census() {
    return ctx.census();
  }

  /** Number of live (unfinished-tree) procedures. */
  public int liveCount() {
    return ctx.procedures().size();
  }

  /** Number of procedures whose step (or rollback step) a worker is running right now. */
  public int runningCount() {
    return workers.activeCount();
  }

  /** Number of procedures ready to run and waiting for a worker in the scheduler. */
  public int queuedCount() {
    return ctx.scheduler().size();
  }

  /** Deadlines in the timeout queue, chores included (for tests). */
  int pendingDeadlines() {
    return ctx.timeouts().size();
  }

  /** Number of workers now, including temporary keep-alive workers. */
  public int workerCount() {
    return workers.workerCount();
  }

  private void ensureRunning() {
    lifecycle.ensureRunning();
  }

  /** Deletes completed roots past their retention (see {@link ExpiredDeadlines#cleanCompleted}). */
  void cleanCompleted() {
    deadlines.cleanCompleted();
  }

  /** Builds a {@link ProcedureExecutor}. */
  public static final class Builder<Env> {
    private final ExecutorSettings<Env> s;

    private Builder(Env env, ProcedureStore store, ProcedureRegistry registry) {
      this.s = new ExecutorSettings<>(env, store, registry);
    }

    /**
     * The queue workers poll procedures from. Not null. Default: a new {@link
     * dev.baton.procedure.scheduler.FifoScheduler}; a {@link
     * dev.baton.procedure.scheduler.FairScheduler} queues per resource.
     */
    public Builder<Env> scheduler(ProcedureScheduler scheduler) {
      s.setScheduler(Objects.requireNonNull(scheduler, "scheduler"));
      return this;
    }

    /**
     * Worker threads that always run. Bounds: at least 1, at most {@link #maxWorkers}. Default: the
     * number of processors, at least 2 ({@link ExecutorConfig#DEFAULT_CORE_WORKERS}).
     */
    public Builder<Env> coreWorkers(int n) {
      s.setCoreWorkers(n);
      return this;
    }

    /**
     * Worker threads at most, the temporary keep-alive workers added while workers are stuck
     * included. Bounds: at least {@link #coreWorkers}. Default: core workers times {@link
     * ExecutorConfig#DEFAULT_MAX_WORKERS_FACTOR}.
     */
    public Builder<Env> maxWorkers(int n) {
      s.setMaxWorkers(n);
      return this;
    }

    /**
     * Threads that decode the stored records at start, at most (one per {@link
     * RecordDecoding#MIN_RECORDS_PER_THREAD} records). Bounds: at least 1. Default: the number of
     * processors ({@link ExecutorConfig#DEFAULT_RECOVERY_THREADS}).
     */
    public Builder<Env> recoveryThreads(int n) {
      s.setRecoveryThreads(n);
      return this;
    }

    /**
     * A worker running one step longer than this counts as stuck, and a temporary worker is added
     * (up to {@link #maxWorkers}). Bounds: a positive duration. Default: 10 s ({@link
     * ExecutorConfig#DEFAULT_STUCK_THRESHOLD}).
     */
    public Builder<Env> stuckThreshold(Duration d) {
      s.setStuckThreshold(d);
      return this;
    }

    /**
     * How often the monitor looks for stuck workers. Bounds: a positive duration. Default: 1 s
     * ({@link ExecutorConfig#DEFAULT_STUCK_CHECK_INTERVAL}).
     */
    public Builder<Env> stuckCheckInterval(Duration d) {
      s.setStuckCheckInterval(d);
      return this;
    }

    /**
     * Idle time after which a temporary worker retires. Bounds: a positive duration. Default: 60 s
     * ({@link ExecutorConfig#DEFAULT_KEEP_ALIVE}).
     */
    public Builder<Env> keepAlive(Duration d) {
      s.setKeepAlive(d);
      return this;
    }

    /**
     * How long {@code stop()} waits for the workers to exit after interrupting them, all of them
     * together; a worker still running its step then is left to finish it (and logged). Bounds: a
     * positive duration. Default: 10 s ({@link ExecutorConfig#DEFAULT_STOP_JOIN_TIMEOUT}).
     */
    public Builder<Env> stopJoinTimeout(Duration d) {
      s.setStopJoinTimeout(d);
      return this;
    }

    /**
     * How long a finished root (and its tree, and its nonce) stays queryable before the cleaner
     * deletes it from the store. Bounds: zero or positive; zero keeps nothing in the store and the
     * info only for {@link ExecutorConfig#ZERO_RETENTION_GRACE} in memory. Default: 10 min ({@link
     * ExecutorConfig#DEFAULT_COMPLETED_RETENTION}).
     */
    public Builder<Env> completedRetention(Duration d) {
      s.setCompletedRetention(d);
      return this;
    }

    /**
     * How often the cleaner of finished roots runs at most; it runs more often when the retention
     * is shorter ({@link ExecutorConfig#cleanerPeriod}). Bounds: a positive duration. Default: 30 s
     * ({@link ExecutorConfig#DEFAULT_CLEANER_INTERVAL}).
     */
    public Builder<Env> cleanerInterval(Duration d) {
      s.setCleanerInterval(d);
      return this;
    }

    /**
     * The backoff before a failed step of a state that cannot be rolled back, or a failed rollback
     * step, runs again: {@code initial}, doubling per attempt, capped at {@code max}. Bounds:
     * {@code initial} a positive duration, {@code max >= initial}. Defaults: 100 ms and 30 s
     * ({@link ExecutorConfig#DEFAULT_RETRY_BACKOFF_INITIAL}, {@link
     * ExecutorConfig#DEFAULT_RETRY_BACKOFF_MAX}).
     */
    public Builder<Env> retryBackoff(Duration initial, Duration max) {
      s.setRetryBackoff(initial, max);
      return this;
    }

    /**
     * The lock manager procedures take their resource locks from (the same instance must be in
     * their environment). The executor binds it when it starts, emptying its table, and re-takes
     * the locks held across steps during recovery. Default: the environment's, if it is a {@link
     * LockEnvironment}, else a new one (see {@link ProcedureExecutor#lockManager()}).
     */
    public Builder<Env> lockManager(LockManager locks) {
      s.setLockManager(Objects.requireNonNull(locks, "lockManager"));
      return this;
    }

    /**
     * Caps the steps of procedures of {@code type} that execute at once at {@code max}; see {@link
     * ProcedureLimiter} for exactly what counts. A procedure over the limit waits without holding a
     * worker. Bounds: {@code max >= 1}. Default: no limit for any type.
     *
     * @throws IllegalArgumentException if {@code type} is not registered or {@code max < 1}
     */
    public Builder<Env> limit(String type, int max) {
      s.limit(type, max);
      return this;
    }

    /**
     * The fencing term stamped on every record this executor writes (a Raft-backed store refuses
     * writes of a stale term). Bounds: 0 or more. Default: 0, for local stores.
     */
    public Builder<Env> term(long term) {
      s.setTerm(term);
      return this;
    }

    /**
     * Called once if the executor stops by itself because it cannot go on (a store write or id
     * reservation failed): after {@link ProcedureExecutor#stop()} has completed — workers
     * interrupted and joined (up to the stop join timeout), the store stopped — on the executor's
     * own fail-stop thread, with the cause ({@link ProcedureExecutor#failure()}). Not called for an
     * explicit {@link ProcedureExecutor#stop()}. An embedding that keeps running (e.g. a Raft
     * leader that is still leader) uses it to build a new executor; the listener must not block for
     * long and must not throw (a thrown exception is logged). Default: none.
     */
    public Builder<Env> onFailStop(Consumer<Throwable> listener) {
      s.setFailStopListener(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * Where the executor reports steps, finished procedures, lock waits and store writes; called on
     * workers, so it must not block. Not null. Default: {@link ProcedureMetrics#NONE}.
     */
    public Builder<Env> metrics(ProcedureMetrics metrics) {
      s.setMetrics(Objects.requireNonNull(metrics, "metrics"));
      return this;
    }

    /**
     * Whether a wait-for cycle among procedures and their locks is broken by failing its youngest
     * procedure that waits for a lock, with a failure that names the cycle (default true: a cycle
     * never resolves by itself and blocks every later procedure on its resources). False leaves it
     * for an operator: it is still logged, counted and listed ({@link
     * ProcedureExecutor#lockCycles()}).
     */
    public Builder<Env> breakDeadlocks(boolean on) {
      s.setBreakDeadlocks(on);
      return this;
    }

    /**
     * Told of every wait-for cycle the lock manager finds, broken or not, on the thread that parked
     * the procedure that closed it; must not block (e.g. count it for metrics). May be called more
     * than once to add listeners. Default: none.
     */
    public Builder<Env> onDeadlock(Consumer<LockCycle> listener) {
      s.addDeadlockListener(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * The executor's one clock, in epoch milliseconds: submission times, waits, procedure timeouts,
     * retry backoffs, retention. Not null. Default: {@link System#currentTimeMillis}; a test passes
     * a fake one.
     */
    public Builder<Env> clock(LongSupplier clock) {
      s.setClock(Objects.requireNonNull(clock, "clock"));
      return this;
    }

    /** The typed settings as set so far (for tests); throws for an invalid one. */
    ExecutorConfig config() {
      return s.config();
    }

    public ProcedureExecutor<Env> build() {
      return new ProcedureExecutor<>(s);
    }
  }
}
