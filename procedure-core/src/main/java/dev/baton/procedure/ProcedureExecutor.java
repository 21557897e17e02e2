package dev.baton.procedure;

import dev.baton.procedure.scheduler.FifoScheduler;
import dev.baton.procedure.scheduler.LimitInfo;
import dev.baton.procedure.scheduler.LockEnvironment;
import dev.baton.procedure.scheduler.LockInfo;
import dev.baton.procedure.scheduler.LockManager;
import dev.baton.procedure.scheduler.ProcedureLimiter;
import dev.baton.procedure.scheduler.ProcedureScheduler;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs procedures: accepts submissions, persists every step through a {@link ProcedureStore}, rolls
 * failed trees back, and rebuilds everything from the store on {@link #start()}.
 *
 * <p>A coordinator of small parts: {@link WorkerPool} (workers and stuck monitor), {@link
 * StepRunner} (one step), {@link RollbackRunner} (unwinding root stacks), {@link
 * ProcedureCompletion}, {@link ProcedureRecovery}, {@link TimeoutQueue} and {@link
 * CompletedProcedureRetainer}. An instance runs once: after {@link #stop()}, build a new one on the
 * same store to restart.
 */
public final class ProcedureExecutor<Env> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProcedureExecutor.class);
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private enum Phase {
    NEW,
    RUNNING,
    STOPPED
  }

  private final ExecutorContext<Env> ctx;
  private final WorkerPool workers;
  private final TimeoutExecutorThread timeoutThread;
  private final ProcedureCompletion<Env> completion;
  private final Submissions<Env> submissions;
  private final ExpiredDeadlines<Env> deadlines;
  private final String name;
  private final Object lifecycle = new Object();
  private volatile Phase phase = Phase.NEW;
  private volatile Throwable failureCause;
  private final Consumer<Throwable> failStopListener;
  private final AtomicBoolean failStopNotified = new AtomicBoolean();

  private ProcedureExecutor(Builder<Env> b) {
    this.name = "baton-executor-" + INSTANCES.incrementAndGet();
    this.failStopListener = b.failStopListener;
    ExecutorConfig config = b.config();
    this.ctx =
        new ExecutorContext<>(
            b.env,
            b.store,
            new ProcedureCodec(b.registry),
            b.scheduler,
            config,
            b.clock,
            this::failStop,
            b.lockManager(),
            new ProcedureLimiter(b.limits));
    this.completion = new ProcedureCompletion<>(ctx);
    this.submissions = new Submissions<>(ctx);
    this.deadlines = new ExpiredDeadlines<>(ctx);
    StepRunner<Env> runner =
        new StepRunner<>(ctx, completion, new RollbackRunner<>(ctx, completion));
    this.workers = new WorkerPool(name, b.scheduler, runner, config);
    this.timeoutThread =
        new TimeoutExecutorThread(name + "-timeout", ctx.timeouts, deadlines::onTimeout);
  }

  public static <Env> Builder<Env> builder(
      Env env, ProcedureStore store, ProcedureRegistry registry) {
    return new Builder<>(env, store, registry);
  }

  /** Recovers from the store, then starts the workers. */
  public void start() throws IOException {
    synchronized (lifecycle) {
      if (phase != Phase.NEW) {
        throw new IllegalStateException(name + " was already started; build a new executor");
      }
      ctx.store.start();
      ctx.scheduler.clear();
      ctx.running = true;
      ctx.admission.attach();
      try {
        new ProcedureRecovery<>(ctx).recover();
      } catch (IOException | RuntimeException e) {
        ctx.running = false;
        ctx.admission.detach();
        phase = Phase.STOPPED;
        // release the store (a file store's directory lock) so a new executor can start on it
        ctx.store.stop();
        throw e;
      }
      ctx.scheduler.start();
      ctx.timeouts.add(
          ctx.now() + ctx.config.cleanerInterval().toMillis(),
          TimeoutQueue.Kind.CLEAN_COMPLETED,
          null);
      phase = Phase.RUNNING;
      workers.start();
      timeoutThread.start();
      LOG.info(
          "{} started with {} workers (max {})",
          name,
          ctx.config.coreWorkers(),
          ctx.config.maxWorkers());
    }
  }

  /** Stops at once: workers interrupted, no further step starts, the store is stopped. */
  public void stop() {
    synchronized (lifecycle) {
      if (phase == Phase.STOPPED) {
        return;
      }
      boolean wasRunning = phase == Phase.RUNNING;
      phase = Phase.STOPPED;
      ctx.running = false;
      ctx.scheduler.stop();
      if (wasRunning) {
        timeoutThread.shutdown();
        workers.stop();
      }
      ctx.admission.detach();
      ctx.store.stop();
      ctx.failWaiters(new CancellationException(name + " stopped"));
      LOG.info("{} stopped", name);
    }
  }

  @Override
  public void close() {
    stop();
  }

  /** Whether the executor runs (started, not stopped, not failed). */
  public boolean isRunning() {
    return phase == Phase.RUNNING;
  }

  /** Why the executor stopped by itself (a store write failed), or empty. */
  public Optional<Throwable> failure() {
    return Optional.ofNullable(failureCause);
  }

  private void failStop(Throwable cause) {
    if (failureCause == null) {
      failureCause = cause;
    }
    LOG.error(
        "{} stops: {}. Procedures resume from the store when an executor starts again.",
        name,
        cause.toString());
    Thread stopper = new Thread(() -> stopAndNotify(cause), name + "-fail-stop");
    stopper.setDaemon(true);
    stopper.start();
  }

  /** On the fail-stop thread: stops, then tells the listener (once the executor fully stopped). */
  private void stopAndNotify(Throwable cause) {
    boolean stoppedBefore = phase == Phase.STOPPED;
    stop();
    if (failStopListener == null || stoppedBefore || !failStopNotified.compareAndSet(false, true)) {
      return;
    }
    try {
      failStopListener.accept(cause);
    } catch (RuntimeException e) {
      LOG.error("{}: the fail-stop listener failed", name, e);
    }
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
   * Takes over a root procedure that someone else submitted and already made durable in this
   * executor's store (a replicated state machine applying a submission from another node). The
   * record must be a new root: RUNNABLE, nothing executed. A procedure this executor already knows
   * is ignored, so adopting the same record twice is harmless.
   *
   * @return true if the procedure was adopted and queued, false if it was already known
   * @throws ProcedureCodecException if the record cannot be decoded or is not a new root
   * @throws IllegalStateException if the executor is not running
   */
  public boolean adopt(StoreRecord record) throws ProcedureCodecException {
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
    Procedure<Env> proc = ctx.procedures.get(procId);
    if (proc == null || proc.isFinished() || proc.isFailed()) {
      return false;
    }
    if (!proc.abort(ctx.env)) {
      return false;
    }
    proc.setAbortRequested(true);
    proc.requestWake();
    ctx.scheduler.addFront(proc);
    return true;
  }

  /**
   * Ends the wait of a procedure that is suspended (WAITING without children) or in
   * WAITING_TIMEOUT, so it runs again now. Returns false if it is not live.
   */
  public boolean wake(long procId) {
    Procedure<Env> proc = ctx.procedures.get(procId);
    if (proc == null || proc.isFinished()) {
      return false;
    }
    proc.requestWake();
    ctx.scheduler.addFront(proc);
    return true;
  }

  /**
   * The procedure, live or completed within retention (or reported corrupt). A live procedure's
   * info carries its current {@link ProcedureInfo#waitReason() wait reason}.
   */
  public Optional<ProcedureInfo> getInfo(long procId) {
    ProcedureInfo info = ctx.info(procId);
    return Optional.ofNullable(info == null ? null : ctx.admission.withWaitReason(info));
  }

  /** Every live, retained and corrupt procedure, by procId, live ones with their wait reason. */
  public List<ProcedureInfo> list() {
    List<ProcedureInfo> all = ctx.allInfos();
    all.replaceAll(ctx.admission::withWaitReason);
    return all;
  }

  /**
   * Why a live procedure does not run now: the lock it waits for and who holds it, its type's full
   * limit, its pending children, a timed wait or retry backoff (with deadlines). Empty if it is
   * running or queued to run, finished, or unknown.
   */
  public Optional<String> waitReason(long procId) {
    return ctx.admission.waitReason(procId);
  }

  /**
   * The lock manager of this executor: procedures reach it through their environment to take
   * resource locks in {@code acquireLock}. The one given to {@link Builder#lockManager}, or a new
   * one.
   */
  public LockManager lockManager() {
    return ctx.admission.locks;
  }

  /** The lock table now: every held or awaited lock with holders and waiters in order. */
  public List<LockInfo> locks() {
    return ctx.admission.locks.snapshot();
  }

  /** The per-type limits now: running, reserved and waiting procedures of each limited type. */
  public List<LimitInfo> limits() {
    return ctx.admission.limiter.snapshot();
  }

  /** Waits until the procedure reached its terminal state. */
  public ProcedureInfo await(long procId, Duration timeout)
      throws TimeoutException, InterruptedException {
    if (ctx.info(procId) == null) {
      throw new IllegalArgumentException("unknown procedure " + procId);
    }
    var future = ctx.finishFuture(procId);
    if (phase == Phase.STOPPED && !future.isDone()) {
      throw new IllegalStateException(
          name + " stopped before procedure " + procId + " finished", failureCause);
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

  /** Number of live (unfinished-tree) procedures. */
  public int liveCount() {
    return ctx.procedures.size();
  }

  /** Number of procedures whose step (or rollback step) a worker is running right now. */
  public int runningCount() {
    return workers.activeCount();
  }

  /** Number of procedures ready to run and waiting for a worker in the scheduler. */
  public int queuedCount() {
    return ctx.scheduler.size();
  }

  /** Deadlines in the timeout queue, chores included (for tests). */
  int pendingDeadlines() {
    return ctx.timeouts.size();
  }

  /** Number of workers now, including temporary keep-alive workers. */
  public int workerCount() {
    return workers.workerCount();
  }

  private void ensureRunning() {
    if (phase != Phase.RUNNING) {
      throw new IllegalStateException(name + " is not running (" + phase + ")");
    }
  }

  /** Deletes completed roots past their retention (see {@link ExpiredDeadlines#cleanCompleted}). */
  void cleanCompleted() {
    deadlines.cleanCompleted();
  }

  /** Builds a {@link ProcedureExecutor}. */
  public static final class Builder<Env> {
    private final Env env;
    private final ProcedureStore store;
    private final ProcedureRegistry registry;
    private ProcedureScheduler scheduler = new FifoScheduler();
    private int coreWorkers = ExecutorConfig.DEFAULT_CORE_WORKERS;
    private Integer maxWorkers;
    private Duration stuckThreshold = ExecutorConfig.DEFAULT_STUCK_THRESHOLD;
    private Duration stuckCheckInterval = ExecutorConfig.DEFAULT_STUCK_CHECK_INTERVAL;
    private Duration keepAlive = ExecutorConfig.DEFAULT_KEEP_ALIVE;
    private Duration pollInterval = ExecutorConfig.DEFAULT_POLL_INTERVAL;
    private Duration completedRetention = ExecutorConfig.DEFAULT_COMPLETED_RETENTION;
    private Duration cleanerInterval = ExecutorConfig.DEFAULT_CLEANER_INTERVAL;
    private Duration retryBackoffInitial = ExecutorConfig.DEFAULT_RETRY_BACKOFF_INITIAL;
    private Duration retryBackoffMax = ExecutorConfig.DEFAULT_RETRY_BACKOFF_MAX;
    private Duration stopJoinTimeout = ExecutorConfig.DEFAULT_STOP_JOIN_TIMEOUT;
    private long term;
    private LongSupplier clock = System::currentTimeMillis;
    private LockManager lockManager;
    private Consumer<Throwable> failStopListener;
    private final Map<String, Integer> limits = new LinkedHashMap<>();

    private Builder(Env env, ProcedureStore store, ProcedureRegistry registry) {
      this.env = env;
      this.store = Objects.requireNonNull(store, "store");
      this.registry = Objects.requireNonNull(registry, "registry");
    }

    public Builder<Env> scheduler(ProcedureScheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    public Builder<Env> coreWorkers(int n) {
      this.coreWorkers = n;
      return this;
    }

    public Builder<Env> maxWorkers(int n) {
      this.maxWorkers = n;
      return this;
    }

    public Builder<Env> stuckThreshold(Duration d) {
      this.stuckThreshold = d;
      return this;
    }

    public Builder<Env> stuckCheckInterval(Duration d) {
      this.stuckCheckInterval = d;
      return this;
    }

    public Builder<Env> keepAlive(Duration d) {
      this.keepAlive = d;
      return this;
    }

    public Builder<Env> completedRetention(Duration d) {
      this.completedRetention = d;
      return this;
    }

    public Builder<Env> cleanerInterval(Duration d) {
      this.cleanerInterval = d;
      return this;
    }

    public Builder<Env> retryBackoff(Duration initial, Duration max) {
      this.retryBackoffInitial = initial;
      this.retryBackoffMax = max;
      return this;
    }

    /**
     * The lock manager procedures take their resource locks from (the same instance must be in
     * their environment). The executor binds it when it starts, emptying its table, and re-takes
     * the locks held across steps during recovery. Default: the environment's, if it is a {@link
     * LockEnvironment}, else a new one (see {@link ProcedureExecutor#lockManager()}).
     */
    public Builder<Env> lockManager(LockManager locks) {
      this.lockManager = Objects.requireNonNull(locks, "lockManager");
      return this;
    }

    /**
     * Caps the steps of procedures of {@code type} that execute at once at {@code max}; see {@link
     * ProcedureLimiter} for exactly what counts. A procedure over the limit waits without holding a
     * worker.
     *
     * @throws IllegalArgumentException if {@code type} is not registered or {@code max < 1}
     */
    public Builder<Env> limit(String type, int max) {
      ProcedureLimiter.checkLimit(type, max);
      if (!registry.isRegistered(type)) {
        throw new IllegalArgumentException(
            "limit for procedure type '" + type + "', which is not registered in the registry");
      }
      limits.put(type, max);
      return this;
    }

    /** The fencing term stamped on every record this executor writes. */
    public Builder<Env> term(long term) {
      this.term = term;
      return this;
    }

    /**
     * Called once if the executor stops by itself because it cannot go on (a store write or id
     * reservation failed): after {@link ProcedureExecutor#stop()} has completed — workers
     * interrupted and joined (up to the stop join timeout), the store stopped — on the executor's
     * own fail-stop thread, with the cause ({@link ProcedureExecutor#failure()}). Not called for an
     * explicit {@link ProcedureExecutor#stop()}. An embedding that keeps running (e.g. a Raft
     * leader that is still leader) uses it to build a new executor; the listener must not block for
     * long and must not throw (a thrown exception is logged).
     */
    public Builder<Env> onFailStop(Consumer<Throwable> listener) {
      this.failStopListener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** Wall clock in epoch milliseconds (submission times, deadlines); for tests. */
    public Builder<Env> clock(LongSupplier clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    private LockManager lockManager() {
      if (lockManager != null) {
        return lockManager;
      }
      return env instanceof LockEnvironment le && le.lockManager() != null
          ? le.lockManager()
          : new LockManager();
    }

    ExecutorConfig config() {
      return new ExecutorConfig(
          coreWorkers,
          maxWorkers != null
              ? maxWorkers
              : Math.max(coreWorkers, coreWorkers * ExecutorConfig.DEFAULT_MAX_WORKERS_FACTOR),
          stuckThreshold,
          stuckCheckInterval,
          keepAlive,
          pollInterval,
          completedRetention,
          cleanerInterval,
          retryBackoffInitial,
          retryBackoffMax,
          stopJoinTimeout,
          term);
    }

    public ProcedureExecutor<Env> build() {
      return new ProcedureExecutor<>(this);
    }
  }
}
