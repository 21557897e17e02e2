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
  final Env env;
  final ProcedureStore store;
  final ProcedureRegistry registry;
  ProcedureScheduler scheduler = new FifoScheduler();
  int coreWorkers = ExecutorConfig.DEFAULT_CORE_WORKERS;
  Integer maxWorkers;
  Duration stuckThreshold = ExecutorConfig.DEFAULT_STUCK_THRESHOLD;
  Duration stuckCheckInterval = ExecutorConfig.DEFAULT_STUCK_CHECK_INTERVAL;
  Duration keepAlive = ExecutorConfig.DEFAULT_KEEP_ALIVE;
  Duration pollInterval = ExecutorConfig.DEFAULT_POLL_INTERVAL;
  Duration completedRetention = ExecutorConfig.DEFAULT_COMPLETED_RETENTION;
  Duration cleanerInterval = ExecutorConfig.DEFAULT_CLEANER_INTERVAL;
  Duration retryBackoffInitial = ExecutorConfig.DEFAULT_RETRY_BACKOFF_INITIAL;
  Duration retryBackoffMax = ExecutorConfig.DEFAULT_RETRY_BACKOFF_MAX;
  Duration stopJoinTimeout = ExecutorConfig.DEFAULT_STOP_JOIN_TIMEOUT;
  int recoveryThreads = ExecutorConfig.DEFAULT_RECOVERY_THREADS;
  long term;
  LongSupplier clock = System::currentTimeMillis;
  LockManager lockManager;
  Consumer<Throwable> failStopListener;
  ProcedureMetrics metrics = ProcedureMetrics.NONE;
  boolean breakDeadlocks = DeadlockPolicy.DEFAULT_BREAK_CYCLES;
  final List<Consumer<LockCycle>> deadlockListeners = new ArrayList<>();
  final Map<String, Integer> limits = new LinkedHashMap<>();

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
}
