package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ExecutorConfigTest {
  private static ExecutorConfig with(Duration retention, Duration cleanerInterval) {
    return with(retention, cleanerInterval, ExecutorConfig.DEFAULT_RECOVERY_THREADS);
  }

  private static ExecutorConfig with(
      Duration retention, Duration cleanerInterval, int recoveryThreads) {
    ExecutorConfig d = ExecutorConfig.defaults();
    return new ExecutorConfig(
        d.coreWorkers(),
        d.maxWorkers(),
        d.stuckThreshold(),
        d.stuckCheckInterval(),
        d.keepAlive(),
        d.pollInterval(),
        retention,
        cleanerInterval,
        d.retryBackoffInitial(),
        d.retryBackoffMax(),
        d.stopJoinTimeout(),
        recoveryThreads,
        d.term());
  }

  @Test
  void zeroRetentionKeepsFinishedInfosForTheGraceAndCleansAtLeastThatOften() {
    ExecutorConfig zero = with(Duration.ZERO, Duration.ofSeconds(30));
    assertEquals(ExecutorConfig.ZERO_RETENTION_GRACE, zero.queryableAfterFinish());
    assertEquals(ExecutorConfig.ZERO_RETENTION_GRACE, zero.cleanerPeriod());
    Duration fast = Duration.ofMillis(20);
    assertEquals(fast, with(Duration.ZERO, fast).cleanerPeriod(), "a shorter interval stays");
  }

  @Test
  void aRetentionShorterThanTheIntervalMakesTheCleanerRunThatOftenButNotUnderOneSecond() {
    assertEquals(
        Duration.ofSeconds(5), with(Duration.ofSeconds(5), Duration.ofSeconds(30)).cleanerPeriod());
    assertEquals(
        ExecutorConfig.MIN_CLEANER_PERIOD,
        with(Duration.ofMillis(500), Duration.ofSeconds(30)).cleanerPeriod());
    Duration fast = Duration.ofMillis(20);
    assertEquals(
        fast, with(Duration.ofMillis(500), fast).cleanerPeriod(), "a shorter interval stays");
  }

  @Test
  void positiveRetentionIsKeptAsConfigured() {
    ExecutorConfig c = with(Duration.ofMinutes(10), Duration.ofSeconds(30));
    assertEquals(Duration.ofMinutes(10), c.queryableAfterFinish());
    assertEquals(Duration.ofSeconds(30), c.cleanerPeriod());
  }

  @Test
  void negativeRetentionIsRefusedWithItsName() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> with(Duration.ofSeconds(-1), Duration.ofSeconds(30)));
    assertTrue(e.getMessage().contains("completedRetention"), e.getMessage());
  }

  @Test
  void noRecoveryThreadIsRefusedWithItsName() {
    ExecutorConfig d = ExecutorConfig.defaults();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> with(d.completedRetention(), d.cleanerInterval(), 0));
    assertTrue(e.getMessage().contains("recoveryThreads"), e.getMessage());
  }
}
