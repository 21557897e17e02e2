package dev.baton.consensus;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A lock-free histogram of durations with microsecond resolution below {@link #LINEAR_MICROS} µs
 * and about 3 % relative resolution above (each power of two split into {@link #SUB_BUCKETS}).
 * Recording is one atomic increment; percentiles are read without stopping writers, so they are
 * approximate while recording goes on.
 */
public final class LatencyHistogram {
  /** Durations below this many microseconds get a bucket each. */
  static final int LINEAR_MICROS = 64;

  /** Buckets per power of two above {@link #LINEAR_MICROS}. */
  static final int SUB_BUCKETS = 32;

  private static final int LINEAR_BITS = Integer.numberOfTrailingZeros(LINEAR_MICROS);
  private static final int SUB_BITS = Integer.numberOfTrailingZeros(SUB_BUCKETS);
  private static final int BUCKETS = LINEAR_MICROS + (Long.SIZE - LINEAR_BITS) * SUB_BUCKETS;
  private static final long NANOS_PER_MICRO = 1_000;
  private static final double MICROS_PER_MILLI = 1_000.0;

  private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);

  /** Records one duration; negative ones count as zero. */
  public void recordNanos(long nanos) {
    counts.incrementAndGet(bucketOf(Math.max(0, nanos) / NANOS_PER_MICRO));
  }

  /** Durations recorded since the last {@link #reset}. */
  public long count() {
    long n = 0;
    for (int i = 0; i < BUCKETS; i++) {
      n += counts.get(i);
    }
    return n;
  }

  /**
   * The duration below which a fraction {@code p} (0..1) of the recorded ones fall, in milliseconds
   * (the middle of its bucket); 0 if nothing was recorded.
   */
  public double percentileMillis(double p) {
    long total = count();
    if (total == 0) {
      return 0;
    }
    long rank = Math.min(total - 1, (long) Math.floor(p * total));
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts.get(i);
      if (seen > rank) {
        return middleMicros(i) / MICROS_PER_MILLI;
      }
    }
    return middleMicros(BUCKETS - 1) / MICROS_PER_MILLI;
  }

  /** Forgets every recorded duration. */
  public void reset() {
    for (int i = 0; i < BUCKETS; i++) {
      counts.set(i, 0);
    }
  }

  static int bucketOf(long micros) {
    if (micros < LINEAR_MICROS) {
      return (int) micros;
    }
    int exponent = Long.SIZE - 1 - Long.numberOfLeadingZeros(micros);
    int sub = (int) (micros >>> (exponent - SUB_BITS)) & (SUB_BUCKETS - 1);
    return LINEAR_MICROS + (exponent - LINEAR_BITS) * SUB_BUCKETS + sub;
  }

  static double middleMicros(int bucket) {
    if (bucket < LINEAR_MICROS) {
      return bucket;
    }
    int exponent = (bucket - LINEAR_MICROS) / SUB_BUCKETS + LINEAR_BITS;
    int sub = (bucket - LINEAR_MICROS) % SUB_BUCKETS;
    double width = Math.pow(2, exponent - SUB_BITS);
    return Math.pow(2, exponent) + sub * width + width / 2;
  }
}
