package dev.baton.confignode.metrics;

import dev.baton.procedure.ProcedureMetrics;
import dev.baton.procedure.ProcedureState;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The executor's {@link ProcedureMetrics} events as Prometheus counters and histograms. Every
 * leader executor of the node reports here, so the figures run on across terms. Labels are the
 * procedure type and a small fixed set (outcome); never a procedure id. Each label combination's
 * data point is looked up once and kept, so recording an event is a map read and an atomic add.
 */
final class ExecutorRecorder implements ProcedureMetrics {
  static final String TYPE = "type";
  static final String OUTCOME = "outcome";

  /** The terminal states a procedure can end in, as outcome label values. */
  static final ProcedureState[] OUTCOMES = {
    ProcedureState.SUCCESS, ProcedureState.ROLLEDBACK, ProcedureState.FAILED
  };

  private static final double NANOS_PER_SECOND = 1e9;
  private static final double MILLIS_PER_SECOND = 1e3;

  private final Counter submitted;
  private final Counter finished;
  private final Histogram duration;
  private final Histogram step;
  private final Counter retries;
  private final Counter lockWaits;
  private final Histogram lockWait;
  private final Counter deadlocks;
  private final Histogram storeWrite;
  private final Counter storeFailures;

  private final Map<String, CounterDataPoint> submittedByType = new ConcurrentHashMap<>();
  private final Map<String, CounterDataPoint> finishedByKey = new ConcurrentHashMap<>();
  private final Map<String, DistributionDataPoint> durationByKey = new ConcurrentHashMap<>();
  private final Map<String, DistributionDataPoint> stepByType = new ConcurrentHashMap<>();
  private final Map<String, CounterDataPoint> retriesByType = new ConcurrentHashMap<>();
  private final Map<String, CounterDataPoint> lockWaitsByType = new ConcurrentHashMap<>();
  private final Map<String, DistributionDataPoint> lockWaitByType = new ConcurrentHashMap<>();

  /** Registers the metrics in {@code registry}, with every type of {@code types} at 0. */
  ExecutorRecorder(PrometheusRegistry registry, Collection<String> types) {
    submitted =
        Counter.builder()
            .name("baton_procedures_submitted_total")
            .help("procedures that became live on this node's executor: roots and children")
            .labelNames(TYPE)
            .register(registry);
    finished =
        Counter.builder()
            .name("baton_procedures_finished_total")
            .help("procedures that reached a terminal state on this node's executor")
            .labelNames(TYPE, OUTCOME)
            .register(registry);
    duration =
        histogram(
            "baton_procedure_duration_seconds",
            "time from submission to the terminal state, for every outcome",
            Buckets.PROCEDURE,
            registry,
            TYPE,
            OUTCOME);
    step =
        histogram(
            "baton_procedure_step_duration_seconds",
            "time one step or rollback step of a procedure ran",
            Buckets.STEP,
            registry,
            TYPE);
    retries =
        Counter.builder()
            .name("baton_procedure_step_retries_total")
            .help("failed steps (or rollback steps) scheduled to run again after a backoff")
            .labelNames(TYPE)
            .register(registry);
    lockWaits =
        Counter.builder()
            .name("baton_lock_waits_total")
            .help("procedures parked waiting for a resource lock")
            .labelNames(TYPE)
            .register(registry);
    lockWait =
        histogram(
            "baton_lock_wait_duration_seconds",
            "time a parked procedure waited until it got its locks",
            Buckets.LOCK_WAIT,
            registry,
            TYPE);
    deadlocks =
        Counter.builder()
            .name("baton_lock_deadlocks_total")
            .help("wait-for cycles found among lock holders and waiters")
            .register(registry);
    storeWrite =
        histogram(
            "baton_store_write_duration_seconds",
            "time from handing a store write over until it was durable",
            Buckets.STORE_WRITE,
            registry);
    storeFailures =
        Counter.builder()
            .name("baton_store_write_failures_total")
            .help("store writes that failed (each stops the executor)")
            .register(registry);
    for (String type : types) {
      submittedByType.computeIfAbsent(type, submitted::labelValues);
      for (ProcedureState outcome : OUTCOMES) {
        finishedPoint(type, outcome);
      }
    }
  }

  private static Histogram histogram(
      String name, String help, double[] bounds, PrometheusRegistry registry, String... labels) {
    return Histogram.builder()
        .name(name)
        .help(help)
        .unit(Unit.SECONDS)
        .classicOnly()
        .classicUpperBounds(bounds)
        .labelNames(labels)
        .register(registry);
  }

  private static <D> D point(Map<String, D> cache, String key, Function<String, D> make) {
    D d = cache.get(key);
    return d != null ? d : cache.computeIfAbsent(key, make);
  }

  private static String key(String type, ProcedureState outcome) {
    return type + '/' + outcome.name();
  }

  static String outcomeLabel(ProcedureState outcome) {
    return outcome.name().toLowerCase(Locale.ROOT);
  }

  private CounterDataPoint finishedPoint(String type, ProcedureState outcome) {
    return point(
        finishedByKey, key(type, outcome), k -> finished.labelValues(type, outcomeLabel(outcome)));
  }

  @Override
  public void submitted(String type) {
    point(submittedByType, type, submitted::labelValues).inc();
  }

  @Override
  public void finished(String type, ProcedureState outcome, long millis) {
    finishedPoint(type, outcome).inc();
    point(durationByKey, key(type, outcome), k -> duration.labelValues(type, outcomeLabel(outcome)))
        .observe(millis / MILLIS_PER_SECOND);
  }

  @Override
  public void stepExecuted(String type, long nanos) {
    point(stepByType, type, step::labelValues).observe(nanos / NANOS_PER_SECOND);
  }

  @Override
  public void stepRetried(String type) {
    point(retriesByType, type, retries::labelValues).inc();
  }

  @Override
  public void lockWaitStarted(String type) {
    point(lockWaitsByType, type, lockWaits::labelValues).inc();
  }

  @Override
  public void lockWaitEnded(String type, long nanos) {
    point(lockWaitByType, type, lockWait::labelValues).observe(nanos / NANOS_PER_SECOND);
  }

  @Override
  public void deadlockFound(int procedures) {
    deadlocks.inc();
  }

  @Override
  public void storeWritten(long nanos) {
    storeWrite.observe(nanos / NANOS_PER_SECOND);
  }

  @Override
  public void storeWriteFailed() {
    storeFailures.inc();
  }
}
