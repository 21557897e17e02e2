package dev.baton.procedure;

import dev.baton.procedure.scheduler.FifoScheduler;
import dev.baton.procedure.scheduler.LockCycle;
import dev.baton.procedure.scheduler.LockEnvironment;
import dev.baton.procedure.scheduler.LockManager;
import dev.baton.procedure.scheduler.ProcedureLimiter;
import dev.baton.procedure.scheduler.ProcedureScheduler;
import dev.baton.procedure.store.ProcedureStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * What a {@link ProcedureExecutor.Builder} collects before {@code build()}: the environment, store
 * and registry, the tuning that becomes an {@link ExecutorConfig} (validated there), and the parts
 * an executor is wired with (scheduler, lock manager, type limits, clock, fail-stop listener).
 * Mutable, filled by one builder on one thread.
 */
final class ExecutorSettings<Env> {
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
  private int recoveryThreads = ExecutorConfig.DEFAULT_RECOVERY_THREADS;
  private long term;
  private LongSupplier clock = System::currentTimeMillis;
  private LockManager lockManager;
  private Consumer<Throwable> failStopListener;
  private ProcedureMetrics metrics = ProcedureMetrics.NONE;
  private boolean breakDeadlocks = DeadlockPolicy.DEFAULT_BREAK_CYCLES;
  private final List<Consumer<LockCycle>> deadlockListeners = new ArrayList<>();
  private final Map<String, Integer> limits = new LinkedHashMap<>();

  ExecutorSettings(Env env, ProcedureStore store, ProcedureRegistry registry) {
    this.env = env;
    this.store = Objects.requireNonNull(store, "store");
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /**
   * Records a per-type limit.
   *
   * @throws IllegalArgumentException if {@code type} is not registered or {@code max < 1}
   */
  void limit(String type, int max) {
    ProcedureLimiter.checkLimit(type, max);
    if (!registry.isRegistered(type)) {
      throw new IllegalArgumentException(
          "limit for procedure type '" + type + "', which is not registered in the registry");
    }
    limits.put(type, max);
  }

  /** The lock manager set, else the environment's if it is a {@link LockEnvironment}, else new. */
  LockManager lockManager() {
    if (lockManager != null) {
      return lockManager;
    }
    return env instanceof LockEnvironment le && le.lockManager() != null
        ? le.lockManager()
        : new LockManager();
  }

  DeadlockPolicy deadlockPolicy() {
    return new DeadlockPolicy(breakDeadlocks, deadlockListeners);
  }

  /** The typed settings; throws {@link IllegalArgumentException} for an invalid one. */
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
        recoveryThreads,
        term);
  }

  // ---------------------------------------------------------------- set by the builder

  void setScheduler(ProcedureScheduler scheduler) {
    this.scheduler = scheduler;
  }

  void setCoreWorkers(int coreWorkers) {
    this.coreWorkers = coreWorkers;
  }

  void setMaxWorkers(int maxWorkers) {
    this.maxWorkers = maxWorkers;
  }

  void setRecoveryThreads(int recoveryThreads) {
    this.recoveryThreads = recoveryThreads;
  }

  void setStuckThreshold(Duration stuckThreshold) {
    this.stuckThreshold = stuckThreshold;
  }

  void setStuckCheckInterval(Duration stuckCheckInterval) {
    this.stuckCheckInterval = stuckCheckInterval;
  }

  void setKeepAlive(Duration keepAlive) {
    this.keepAlive = keepAlive;
  }

  void setStopJoinTimeout(Duration stopJoinTimeout) {
    this.stopJoinTimeout = stopJoinTimeout;
  }

  void setCompletedRetention(Duration completedRetention) {
    this.completedRetention = completedRetention;
  }

  void setCleanerInterval(Duration cleanerInterval) {
    this.cleanerInterval = cleanerInterval;
  }

  void setLockManager(LockManager lockManager) {
    this.lockManager = lockManager;
  }

  void setTerm(long term) {
    this.term = term;
  }

  void setFailStopListener(Consumer<Throwable> failStopListener) {
    this.failStopListener = failStopListener;
  }

  void setMetrics(ProcedureMetrics metrics) {
    this.metrics = metrics;
  }

  void setBreakDeadlocks(boolean breakDeadlocks) {
    this.breakDeadlocks = breakDeadlocks;
  }

  void setClock(LongSupplier clock) {
    this.clock = clock;
  }

  void setRetryBackoff(Duration initial, Duration max) {
    this.retryBackoffInitial = initial;
    this.retryBackoffMax = max;
  }

  void addDeadlockListener(Consumer<LockCycle> listener) {
    deadlockListeners.add(listener);
  }

  // ---------------------------------------------------------------- read by the executor

  /**
   * The shared state of an executor built from these settings.
   *
   * @param config the typed settings ({@link #config()})
   * @param fatal what the executor does when a part fails it
   */
  ExecutorContext<Env> context(ExecutorConfig config, Consumer<Throwable> fatal) {
    return new ExecutorContext<>(
        env,
        store,
        new ProcedureCodec(registry),
        scheduler,
        config,
        clock,
        fatal,
        lockManager(),
        new ProcedureLimiter(limits),
        metrics,
        deadlockPolicy());
  }

  /** Told when the executor stops by itself after a fatal error; null if none was given. */
  Consumer<Throwable> failStopListener() {
    return failStopListener;
  }
}
