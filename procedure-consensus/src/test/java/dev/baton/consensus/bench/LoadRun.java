package dev.baton.consensus.bench;

import dev.baton.consensus.LatencyHistogram;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Completions of one load phase of the benchmark: a histogram, not a list of samples (a boxed
 * sample per procedure would make the benchmark's own garbage part of the GC it measures).
 */
final class LoadRun {
  private final LatencyHistogram latencies = new LatencyHistogram();
  final AtomicLong errors = new AtomicLong();
  final long start = System.nanoTime();
  double seconds;

  void record(long nanos) {
    latencies.recordNanos(nanos);
  }

  void finish() {
    seconds = (System.nanoTime() - start) / 1e9;
  }

  double perSecond() {
    return latencies.count() / seconds;
  }

  /** The {@code p} quantile in milliseconds. */
  double percentile(double p) {
    return latencies.percentileMillis(p);
  }
}
