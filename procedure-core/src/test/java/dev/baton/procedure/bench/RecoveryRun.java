package dev.baton.procedure.bench;

import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.store.ProcedureStore;
import java.io.IOException;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The recovery measurement: a store holding many live procedures parked in WAITING_TIMEOUT (or held
 * before parking, each with a due state the recovery writes), and the time a new executor's {@code
 * start()} takes to rebuild them, with the heap they then take.
 */
final class RecoveryRun {
  /** Filling the store must finish within this. */
  private static final Duration MAX_FILL = Duration.ofMinutes(10);

  /** How often the filler looks whether a procedure has parked. */
  private static final long PARK_POLL_MICROS = 100;

  /**
   * One recovery.
   *
   * @param startNanos how long {@code start()} took: store open and load, decoding, wiring
   * @param threadCpuNanos CPU time of the thread running {@code start()} (collections excluded)
   * @param gcMillis time the JVM spent in garbage collection during {@code start()}
   * @param heapBytes heap the recovered executor (and for a file store, the store's index) added
   */
  record Result(int live, long startNanos, long threadCpuNanos, long gcMillis, long heapBytes) {
    double perSecond() {
      return live / (startNanos / 1e9);
    }

    double heapBytesPerProcedure() {
      return (double) heapBytes / live;
    }
  }

  private RecoveryRun() {}

  /**
   * Runs {@code live} {@link ParkedProcedure}s until every one is parked, then stops; or, with
   * {@code held}, submits them with parking held (all but the ones on a worker never run a step,
   * each stored with its first state due) and stops once every submission is durable.
   */
  static void fill(ProcedureStore store, int live, boolean held)
      throws IOException, InterruptedException, TimeoutException {
    BenchEnv env = new BenchEnv(live, held);
    ProcedureExecutor<BenchEnv> executor = BenchExecutors.build(env, store);
    executor.start();
    try {
      long t0 = System.nanoTime();
      Submitters submitters =
          new Submitters(executor, env, ParkedProcedure::new, live, t0 + MAX_FILL.toNanos(), !held);
      submitters.start();
      submitters.join();
      if (submitters.submitted() != live) {
        throw new TimeoutException(
            "only " + submitters.submitted() + " of " + live + " submitted within " + MAX_FILL);
      }
      for (long[] ids : held ? List.<long[]>of() : submitters.ids()) {
        for (long id : ids) {
          if (id != 0) {
            awaitParked(executor, id, t0 + MAX_FILL.toNanos());
          }
        }
      }
    } finally {
      executor.stop();
    }
  }

  /** A persisted update refreshes the info, so WAITING_TIMEOUT there means the park is stored. */
  private static void awaitParked(ProcedureExecutor<BenchEnv> executor, long id, long deadline)
      throws InterruptedException, TimeoutException {
    while (true) {
      ProcedureInfo info = executor.getInfo(id).orElseThrow();
      if (info.state() == ProcedureState.WAITING_TIMEOUT) {
        return;
      }
      if (info.finished() || !executor.isRunning()) {
        throw new IllegalStateException("procedure " + id + " did not park: " + info);
      }
      if (System.nanoTime() - deadline > 0) {
        throw new TimeoutException("procedure " + id + " did not park within " + MAX_FILL);
      }
      TimeUnit.MICROSECONDS.sleep(PARK_POLL_MICROS);
    }
  }

  /**
   * Builds a new executor on {@code store} (not started) and times its {@code start()}; with {@code
   * held}, its workers are held as the filling executor's were.
   */
  static Result recover(ProcedureStore store, int live, boolean held)
      throws IOException, InterruptedException {
    BenchEnv env = new BenchEnv(1, held);
    ProcedureExecutor<BenchEnv> executor = BenchExecutors.build(env, store);
    try {
      long before = JvmMeter.usedHeapAfterGc();
      long gc0 = JvmMeter.gcMillis();
      long cpu0 = JvmMeter.threadCpuNanos();
      long t0 = System.nanoTime();
      executor.start();
      long t1 = System.nanoTime();
      long threadCpu = JvmMeter.threadCpuNanos() - cpu0;
      long gcMillis = JvmMeter.gcMillis() - gc0;
      if (executor.liveCount() != live) {
        throw new IllegalStateException(
            "recovered " + executor.liveCount() + " live procedures, expected " + live);
      }
      long after = JvmMeter.usedHeapAfterGc();
      Reference.reachabilityFence(executor);
      return new Result(live, t1 - t0, threadCpu, gcMillis, after - before);
    } finally {
      executor.stop();
    }
  }
}
