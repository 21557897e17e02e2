package dev.baton.confignode.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Latency percentiles of one series, in milliseconds (nearest rank).
 *
 * @param p50 the median
 * @param p99 the 99th percentile
 * @param p999 the 99.9th percentile
 */
public record Percentiles(double p50, double p99, double p999) {
  static final double PERCENT_50 = 0.50;
  static final double PERCENT_99 = 0.99;
  static final double PERCENT_999 = 0.999;

  private static final double NANOS_PER_MILLI = 1e6;

  /** Of durations in nanoseconds; all 0 for none. */
  static Percentiles ofNanos(long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return new Percentiles(
        percentile(sorted, PERCENT_50) / NANOS_PER_MILLI,
        percentile(sorted, PERCENT_99) / NANOS_PER_MILLI,
        percentile(sorted, PERCENT_999) / NANOS_PER_MILLI);
  }

  /** Nearest-rank percentile of sorted values; 0 for none. */
  static long percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  /** For the JSON line: milliseconds rounded to a tenth. */
  Map<String, Double> json() {
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("p50", BenchResult.round(p50));
    m.put("p99", BenchResult.round(p99));
    m.put("p999", BenchResult.round(p999));
    return m;
  }
}
