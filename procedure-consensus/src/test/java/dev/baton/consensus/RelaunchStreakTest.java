package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The relaunch policy of a leader whose executors keep failing, on a hand-driven clock. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class RelaunchStreakTest {
  private final RelaunchStreak streak =
      new RelaunchStreak(Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofSeconds(10));

  @Test
  void relaunchesAtOnceThenBacksOffDoublingUpToTheMaximum() {
    assertEquals(0, streak.failed(1_000).delayMillis());
    assertEquals(100, streak.failed(1_001).delayMillis());
    assertEquals(200, streak.failed(1_002).delayMillis());
    assertEquals(400, streak.failed(1_003).delayMillis());
    RelaunchStreak.Next capped = streak.failed(1_004);
    assertEquals(500, capped.delayMillis());
    assertEquals(6, capped.attempt());
    for (int i = 0; i < 100; i++) {
      assertEquals(500, streak.failed(1_005 + i).delayMillis(), "no overflow after many failures");
    }
  }

  @Test
  void handsLeadershipOverOnceTheStreakIsOlderThanTheBoundAndAsksOnceAtATime() {
    assertFalse(streak.failed(0).handOver());
    streak.running(1);
    assertFalse(streak.failed(5_000).handOver(), "ran only briefly: the streak goes on");
    assertTrue(streak.failed(10_000).handOver());
    assertFalse(streak.failed(11_000).handOver(), "one request at a time");
    streak.handOverDone();
    assertTrue(streak.failed(12_000).handOver(), "asks again after a failed hand-over");
  }

  @Test
  void anIncarnationThatRanLongerThanTheBoundEndsTheStreak() {
    streak.failed(0);
    streak.failed(1);
    streak.running(2);
    RelaunchStreak.Next next = streak.failed(20_000);
    assertEquals(0, next.delayMillis(), "a new streak starts at once");
    assertEquals(2, next.attempt());
    assertFalse(next.handOver());
  }
}
