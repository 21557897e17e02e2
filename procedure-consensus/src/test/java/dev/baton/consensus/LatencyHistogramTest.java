package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LatencyHistogramTest {
  private static final double RELATIVE_ERROR = 0.04;

  @Test
  void percentilesOfAUniformSpreadAreWithinTheBucketResolution() {
    LatencyHistogram h = new LatencyHistogram();
    for (int ms = 1; ms <= 1000; ms++) {
      h.recordNanos(TimeUnit.MILLISECONDS.toNanos(ms));
    }
    assertEquals(1000, h.count());
    assertEquals(501, h.percentileMillis(0.5), 501 * RELATIVE_ERROR);
    assertEquals(991, h.percentileMillis(0.99), 991 * RELATIVE_ERROR);
    assertEquals(1, h.percentileMillis(0.0), 1 * RELATIVE_ERROR);
    assertEquals(1000, h.percentileMillis(1.0), 1000 * RELATIVE_ERROR);
  }

  @Test
  void shortDurationsKeepMicrosecondsAndNegativeOnesCountAsZero() {
    LatencyHistogram h = new LatencyHistogram();
    h.recordNanos(-5);
    h.recordNanos(TimeUnit.MICROSECONDS.toNanos(40));
    h.recordNanos(TimeUnit.MICROSECONDS.toNanos(40));
    assertEquals(0.0, h.percentileMillis(0.0));
    assertEquals(0.040, h.percentileMillis(0.9));
  }

  @Test
  void aSlowTailShowsInTheHighPercentilesOnly() {
    LatencyHistogram h = new LatencyHistogram();
    for (int i = 0; i < 990; i++) {
      h.recordNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    for (int i = 0; i < 10; i++) {
      h.recordNanos(TimeUnit.MILLISECONDS.toNanos(300));
    }
    assertEquals(5, h.percentileMillis(0.5), 5 * RELATIVE_ERROR);
    assertEquals(300, h.percentileMillis(0.995), 300 * RELATIVE_ERROR);
  }

  @Test
  void resetForgetsEverythingAndAnEmptyHistogramReadsZero() {
    LatencyHistogram h = new LatencyHistogram();
    h.recordNanos(TimeUnit.SECONDS.toNanos(3));
    h.reset();
    assertEquals(0, h.count());
    assertEquals(0.0, h.percentileMillis(0.99));
  }

  @Test
  void bucketsAreOrderedAndEachBucketsMiddleFallsBackIntoIt() {
    int previous = -1;
    for (long micros = 0; micros < 10_000_000; micros = micros * 5 / 4 + 1) {
      int bucket = LatencyHistogram.bucketOf(micros);
      assertTrue(bucket >= previous, micros + " µs went to bucket " + bucket + " < " + previous);
      assertEquals(bucket, LatencyHistogram.bucketOf((long) LatencyHistogram.middleMicros(bucket)));
      previous = bucket;
    }
    assertTrue(LatencyHistogram.bucketOf(Long.MAX_VALUE) > previous);
  }
}
