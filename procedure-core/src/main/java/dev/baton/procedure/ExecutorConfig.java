package dev.baton.procedure;

import java.time.Duration;

/**
 * Typed settings of a {@link ProcedureExecutor}, each with its default. Built through {@link
 * ProcedureExecutor.Builder}; validated there.
 *
 * @param coreWorkers workers that always run
 * @param maxWorkers upper bound including temporary keep-alive workers
 * @param stuckThreshold a worker running one step longer than this counts as stuck
 * @param stuckCheckInterval how often the monitor looks for stuck workers
 * @param keepAlive idle time after which a temporary worker retires
 * @param pollInterval how long an idle worker blocks on the scheduler before re-checking
 * @param completedRetention how long finished roots stay queryable before the cleaner removes them;
 *     zero keeps nothing in the store (a root's final write deletes its tree, and with it its
 *     nonce) and its info only for {@link #ZERO_RETENTION_GRACE} in the memory of the executor that
 *     ran it
 * @param cleanerInterval how often the cleaner runs at most; it runs more often when the retention
 *     is shorter (see {@link #cleanerPeriod})
 * @param retryBackoffInitial first wait before retrying a step or rollback step that failed
 * @param retryBackoffMax the cap of the exponential retry backoff
 * @param stopJoinTimeout how long {@code stop()} waits for the workers to exit, all together
 * @param recoveryThreads threads that decode the stored records when the executor starts, at most
 *     (one per {@link RecordDecoding#MIN_RECORDS_PER_THREAD} records); the wiring after runs on the
 *     thread calling {@code start()}
 * @param term the term stamped on every record written (fencing token); 0 for local stores
 */
public record ExecutorConfig(
    int coreWorkers,
    int maxWorkers,
    Duration stuckThreshold,
    Duration stuckCheckInterval,
    Duration keepAlive,
    Duration pollInterval,
    Duration completedRetention,
    Duration cleanerInterval,
    Duration retryBackoffInitial,
    Duration retryBackoffMax,
    Duration stopJoinTimeout,
    int recoveryThreads,
    long term) {

  public static final int DEFAULT_CORE_WORKERS =
      Math.max(2, Runtime.getRuntime().availableProcessors());
  public static final int DEFAULT_MAX_WORKERS_FACTOR = 4;
  public static final Duration DEFAULT_STUCK_THRESHOLD = Duration.ofSeconds(10);
  public static final Duration DEFAULT_STUCK_CHECK_INTERVAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_KEEP_ALIVE = Duration.ofSeconds(60);
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(500);
  public static final Duration DEFAULT_COMPLETED_RETENTION = Duration.ofMinutes(10);
  public static final Duration DEFAULT_CLEANER_INTERVAL = Duration.ofSeconds(30);
  public static final Duration DEFAULT_RETRY_BACKOFF_INITIAL = Duration.ofMillis(100);
  public static final Duration DEFAULT_RETRY_BACKOFF_MAX = Duration.ofSeconds(30);
  public static final Duration DEFAULT_STOP_JOIN_TIMEOUT = Duration.ofSeconds(10);
  public static final int DEFAULT_RECOVERY_THREADS = Runtime.getRuntime().availableProcessors();

  /**
   * With retention zero, how long a finished root stays queryable on the executor that ran it: a
   * caller that got its id a moment before it finished can still wait for it.
   */
  public static final Duration ZERO_RETENTION_GRACE = Duration.ofSeconds(1);

  /** The cleaner never runs more often than this on its own account (a configured interval may). */
  public static final Duration MIN_CLEANER_PERIOD = Duration.ofSeconds(1);

  /**
   * The longest the timeout thread waits for the next deadline before it looks again whether the
   * executor is stopping; not a setting.
   */
  static final Duration TIMEOUT_THREAD_IDLE_WAIT = Duration.ofSeconds(1);

  /** The defaults. */
  public static ExecutorConfig defaults() {
    return new ExecutorConfig(
        DEFAULT_CORE_WORKERS,
        DEFAULT_CORE_WORKERS * DEFAULT_MAX_WORKERS_FACTOR,
        DEFAULT_STUCK_THRESHOLD,
        DEFAULT_STUCK_CHECK_INTERVAL,
        DEFAULT_KEEP_ALIVE,
        DEFAULT_POLL_INTERVAL,
        DEFAULT_COMPLETED_RETENTION,
        DEFAULT_CLEANER_INTERVAL,
        DEFAULT_RETRY_BACKOFF_INITIAL,
        DEFAULT_RETRY_BACKOFF_MAX,
        DEFAULT_STOP_JOIN_TIMEOUT,
        DEFAULT_RECOVERY_THREADS,
        0);
  }

  /** Checks every setting; the message says what was wrong and what is allowed. */
  public ExecutorConfig {
    if (coreWorkers < 1) {
      throw new IllegalArgumentException("coreWorkers must be >= 1, got " + coreWorkers);
    }
    if (maxWorkers < coreWorkers) {
      throw new IllegalArgumentException(
          "maxWorkers must be >= coreWorkers (" + coreWorkers + "), got " + maxWorkers);
    }
    requirePositive("stuckThreshold", stuckThreshold);
    requirePositive("stuckCheckInterval", stuckCheckInterval);
    requirePositive("keepAlive", keepAlive);
    requirePositive("pollInterval", pollInterval);
    requirePositive("cleanerInterval", cleanerInterval);
    requirePositive("retryBackoffInitial", retryBackoffInitial);
    requirePositive("stopJoinTimeout", stopJoinTimeout);
    if (completedRetention == null || completedRetention.isNegative()) {
      throw new IllegalArgumentException(
          "completedRetention must be >= 0, got " + completedRetention);
    }
    if (retryBackoffMax == null || retryBackoffMax.compareTo(retryBackoffInitial) < 0) {
      throw new IllegalArgumentException(
          "retryBackoffMax must be >= retryBackoffInitial ("
              + retryBackoffInitial
              + "), got "
              + retryBackoffMax);
    }
    if (recoveryThreads < 1) {
      throw new IllegalArgumentException("recoveryThreads must be >= 1, got " + recoveryThreads);
    }
    if (term < 0) {
      throw new IllegalArgumentException("term must be >= 0, got " + term);
    }
  }

  /** How long a finished root stays queryable here: the retention, or the grace if that is zero. */
  public Duration queryableAfterFinish() {
    return completedRetention.isZero() ? ZERO_RETENTION_GRACE : completedRetention;
  }

  /**
   * How often the cleaner runs: the interval, or more often when a finished root stays queryable
   * for less than that, at most every {@link #MIN_CLEANER_PERIOD}. A root is then removed within
   * max(its queryable time, {@link #MIN_CLEANER_PERIOD}) after its retention ends, whatever the
   * interval (and finished infos at a high rate do not pile up in memory for a whole interval).
   */
  public Duration cleanerPeriod() {
    Duration bound =
        queryableAfterFinish().compareTo(MIN_CLEANER_PERIOD) > 0
            ? queryableAfterFinish()
            : MIN_CLEANER_PERIOD;
    return bound.compareTo(cleanerInterval) < 0 ? bound : cleanerInterval;
  }

  private static void requirePositive(String name, Duration d) {
    if (d == null || d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(name + " must be a positive duration, got " + d);
    }
  }

  /** The retry wait after {@code attempt} failures (1-based): doubling, capped. */
  public long retryBackoffMillis(int attempt) {
    long initial = retryBackoffInitial.toMillis();
    int shift = Math.min(Math.max(attempt - 1, 0), Long.SIZE - 2);
    long wait = shift >= Long.numberOfLeadingZeros(initial) - 1 ? Long.MAX_VALUE : initial << shift;
    return Math.min(wait, retryBackoffMax.toMillis());
  }
}
