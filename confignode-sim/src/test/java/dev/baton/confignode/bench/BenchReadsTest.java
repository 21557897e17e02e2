package dev.baton.confignode.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** When the bench's read warm-up counts the read paths as warm. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class BenchReadsTest {
  /** A leader's read p50 that no longer changes, in ms. */
  private static final double LEADER = 0.4;

  @Test
  void aFollowerReadThatStillGetsFasterIsNotWarm() {
    BenchReads.Steadiness s = new BenchReads.Steadiness();
    // a follower's p50 per round of a warm-up by Baton's read index call (ms, rounded)
    for (double follower : new double[] {2.0, 1.0, 0.72, 0.66, 0.62, 0.59, 0.51, 0.48}) {
      s.add(LEADER, follower);
      assertFalse(s.steady(), "warm while the follower's p50 fell to " + follower);
    }
  }

  @Test
  void threeRoundsInARowWithoutAFallAreWarm() {
    BenchReads.Steadiness s = new BenchReads.Steadiness();
    s.add(LEADER, 0.50);
    s.add(LEADER, 0.49); // within the 5 % of the best: no fall
    s.add(LEADER, 0.51);
    assertFalse(s.steady(), "two rounds without a fall");
    s.add(LEADER, 0.48);
    assertTrue(s.steady(), "three rounds without a fall");
  }

  @Test
  void aFallOfEitherReadStartsTheCountAgain() {
    BenchReads.Steadiness s = new BenchReads.Steadiness();
    s.add(LEADER, 0.50);
    s.add(LEADER, 0.50);
    s.add(LEADER, 0.50);
    s.add(LEADER * 0.8, 0.50); // the leader's read fell
    assertFalse(s.steady(), "steady right after the leader's read fell");
    s.add(LEADER * 0.8, 0.50);
    s.add(LEADER * 0.8, 0.50);
    s.add(LEADER * 0.8, 0.40); // the follower's read fell
    assertFalse(s.steady(), "steady right after the follower's read fell");
  }
}
