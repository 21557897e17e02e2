package dev.baton.procedure.bench;

import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.store.FileProcedureStore;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One throughput measurement: a fresh executor on the given store runs {@link NoopSteps} procedures
 * submitted by {@link Submitters}, and the run ends when the last one finished.
 */
final class ThroughputRun {
  /** How often the driver looks whether every submitted procedure finished. */
  private static final long COMPLETION_POLL_MICROS = 200;

  /** A run that does not finish within this is reported as stuck. */
  private static final Duration MAX_DRAIN = Duration.ofMinutes(5);

  /**
   * What a run did, counted between the first submission and the last completion.
   *
   * @param syncs forces of the file store (0 for other stores)
   * @param syncedBatches batches the file store made durable (0 for other stores)
   * @param cpuNanos CPU time of the whole JVM during the run (-1 if unknown)
   * @param gcMillis time the JVM spent in garbage collection during the run
   */
  record Result(
      long procedures,
      long steps,
      long storeWrites,
      long cleanerWrites,
      long syncs,
      long syncedBatches,
      long cpuNanos,
      long gcMillis,
      long nanos) {

    double seconds() {
      return nanos / 1e9;
    }

    double perSecond(long count) {
      return count / seconds();
    }

    double cpuPercent() {
      return JvmMeter.cpuPercent(cpuNanos, nanos);
    }

    double batchesPerSync() {
      return syncs == 0 ? 0 : (double) syncedBatches / syncs;
    }
  }

  private final int inFlight;

  ThroughputRun(int inFlight) {
    this.inFlight = inFlight;
  }

  /** Runs {@code procedures} procedures, or as many as start within {@code maxTime}. */
  Result run(CountingStore store, long procedures, Duration maxTime)
      throws IOException, InterruptedException, TimeoutException {
    BenchEnv env = new BenchEnv(inFlight);
    ProcedureExecutor<BenchEnv> executor = BenchExecutors.build(env, store);
    executor.start();
    try {
      long writes0 = store.writes();
      long cleaner0 = store.deleteOnlyWrites();
      long syncs0 = syncs(store);
      long batches0 = syncedBatches(store);
      long cpu0 = JvmMeter.processCpuNanos();
      long gc0 = JvmMeter.gcMillis();
      long t0 = System.nanoTime();
      Submitters submitters =
          new Submitters(executor, env, NoopSteps::new, procedures, t0 + maxTime.toNanos(), false);
      submitters.start();
      submitters.join();
      long expected = submitters.submitted();
      long giveUp = System.nanoTime() + MAX_DRAIN.toNanos();
      while (env.finished.sum() < expected) {
        if (executor.failure().isPresent() || !executor.isRunning()) {
          throw new IllegalStateException(
              "executor stopped during the run", executor.failure().orElse(null));
        }
        if (System.nanoTime() > giveUp) {
          throw new TimeoutException(
              env.finished.sum() + " of " + expected + " procedures finished within " + MAX_DRAIN);
        }
        TimeUnit.MICROSECONDS.sleep(COMPLETION_POLL_MICROS);
      }
      long t1 = System.nanoTime();
      long cpu1 = JvmMeter.processCpuNanos();
      return new Result(
          expected,
          env.steps.sum(),
          store.writes() - writes0,
          store.deleteOnlyWrites() - cleaner0,
          syncs(store) - syncs0,
          syncedBatches(store) - batches0,
          cpu0 < 0 ? -1 : cpu1 - cpu0,
          JvmMeter.gcMillis() - gc0,
          t1 - t0);
    } finally {
      executor.stop();
    }
  }

  private static long syncs(CountingStore store) {
    return store.delegate() instanceof FileProcedureStore f ? f.syncCount() : 0;
  }

  private static long syncedBatches(CountingStore store) {
    return store.delegate() instanceof FileProcedureStore f ? f.writtenBatchCount() : 0;
  }
}
