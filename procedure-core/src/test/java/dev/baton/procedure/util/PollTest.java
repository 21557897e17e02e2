package dev.baton.procedure.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Poll over a fake clock whose sleeper only advances the clock: nothing here sleeps. */
@Timeout(10)
class PollTest {
  private static final Duration TEN_MS = Duration.ofMillis(10);
  private static final Duration FIFTY_MS = Duration.ofMillis(50);
  private static final Duration ONE_SECOND = Duration.ofSeconds(1);

  /** The fake clock: starts at an arbitrary instant, advanced by every pause. */
  private long now = 123_456_789L;

  private final List<Duration> pauses = new ArrayList<>();
  private final AtomicInteger looks = new AtomicInteger();

  private <X extends Exception> Poll<X> fake(Poll<X> poll) {
    return poll.clock(
        () -> now,
        pause -> {
          pauses.add(pause);
          now += pause.toNanos();
        });
  }

  /** A probe that counts its looks and fails every one with {@code failure}. */
  private <E extends Exception> Poll.Probe<String, E> failing(E failure) {
    return () -> {
      looks.incrementAndGet();
      throw failure;
    };
  }

  @Test
  void returnsTheValueAtTheLookWhereTheConditionHolds() throws Exception {
    String value =
        fake(Poll.every(TEN_MS).within(ONE_SECOND))
            .until(() -> looks.incrementAndGet() == 3 ? "ready" : null);

    assertEquals("ready", value);
    assertEquals(3, looks.get());
    assertEquals(List.of(TEN_MS, TEN_MS), pauses, "no pause after the condition held");
  }

  @Test
  void aValueThatDoesNotSatisfyTheConditionMeansNotYet() throws Exception {
    int value = fake(Poll.every(TEN_MS)).until(looks::incrementAndGet, n -> n >= 4);

    assertEquals(4, value);
    assertEquals(3, pauses.size());
  }

  @Test
  void theDeadlineGivesAnErrorNamingWhatWasAwaitedAndTheLastFailure() {
    IOException refused = new IOException("connection refused");
    TimeoutException e =
        assertThrows(
            TimeoutException.class,
            () ->
                fake(Poll.every(TEN_MS).within(FIFTY_MS))
                    .awaiting("node n1 answering")
                    .notYetOn(IOException.class)
                    .until(failing(refused)));

    assertEquals(
        "gave up after 50 ms waiting for: node n1 answering (last error: connection refused)",
        e.getMessage());
    assertSame(refused, e.getCause());
    assertEquals(6, looks.get(), "looks at 0, 10, ..., 50 ms");
  }

  @Test
  void theDeadlineErrorNamesTheLastValueSeen() {
    TimeoutException e =
        assertThrows(
            TimeoutException.class,
            () ->
                fake(Poll.every(TEN_MS).within(ONE_SECOND))
                    .awaiting("procedure 7 finished")
                    .until(() -> "RUNNABLE at step " + looks.incrementAndGet(), s -> false));

    assertEquals(
        "gave up after 1 s waiting for: procedure 7 finished (last seen: RUNNABLE at step 101)",
        e.getMessage());
  }

  @Test
  void onTimeoutChoosesTheErrorAndGetsTheExpiry() {
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                fake(Poll.every(TEN_MS).within(TEN_MS))
                    .awaiting("a leader")
                    .onTimeout(x -> new IOException(x.what() + " after " + x.timeout()))
                    .untilTrue(() -> false));

    assertEquals("a leader after PT0.01S", e.getMessage());
  }

  @Test
  void aZeroTimeoutLooksOnce() {
    assertThrows(
        TimeoutException.class,
        () ->
            fake(Poll.every(TEN_MS).within(Duration.ZERO))
                .untilTrue(() -> looks.incrementAndGet() > 1));
    assertEquals(1, looks.get());
    assertTrue(pauses.isEmpty());
  }

  @Test
  void aFailureNotDeclaredNotYetPropagatesAtOnce() {
    IllegalStateException broken = new IllegalStateException("broken");
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                fake(Poll.every(TEN_MS).within(ONE_SECOND))
                    .notYetOn(IOException.class)
                    .until(failing(broken)));

    assertSame(broken, e);
    assertEquals(1, looks.get());
    assertTrue(pauses.isEmpty());
  }

  @Test
  void anInterruptDuringThePausePropagates() {
    Poll<TimeoutException> poll =
        Poll.every(TEN_MS)
            .within(ONE_SECOND)
            .clock(
                () -> now,
                pause -> {
                  throw new InterruptedException("stop");
                });

    assertThrows(InterruptedException.class, () -> poll.untilTrue(() -> false));
  }

  @Test
  void anInterruptOfTheProbeIsNeverNotYet() {
    Poll<TimeoutException> anything = fake(Poll.every(TEN_MS)).notYetOn(Exception.class);

    assertThrows(
        InterruptedException.class,
        () ->
            anything.untilTrue(
                () -> {
                  throw new InterruptedException();
                }));
    assertThrows(
        InterruptedIOException.class,
        () ->
            anything.untilTrue(
                () -> {
                  throw new InterruptedIOException();
                }));
    assertTrue(pauses.isEmpty());
  }

  @Test
  void theRealSleeperPropagatesAnInterrupt() {
    Thread.currentThread().interrupt();
    try {
      assertThrows(InterruptedException.class, () -> Poll.every(ONE_SECOND).untilTrue(() -> false));
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void theRealClockReturnsAConditionThatHoldsWithoutPausing() throws Exception {
    assertEquals("now", Poll.every(Duration.ofMinutes(1)).within(ONE_SECOND).until(() -> "now"));
  }

  @Test
  void backoffDoublesThePauseUpToItsCap() throws Exception {
    fake(Poll.backoff(TEN_MS, FIFTY_MS)).until(looks::incrementAndGet, n -> n == 6);

    assertEquals(
        List.of(TEN_MS, Duration.ofMillis(20), Duration.ofMillis(40), FIFTY_MS, FIFTY_MS), pauses);
  }

  @Test
  void pauseFirstPausesBeforeTheFirstLookToo() throws Exception {
    fake(Poll.backoff(Duration.ofMillis(2), Duration.ofMillis(16)))
        .pauseFirst()
        .until(looks::incrementAndGet, n -> n == 3);

    assertEquals(List.of(Duration.ofMillis(2), Duration.ofMillis(4), Duration.ofMillis(8)), pauses);
  }

  @Test
  void retryRepeatsANotYetFailureAndReturnsTheFirstResult() throws Exception {
    String result =
        fake(Poll.every(TEN_MS).within(ONE_SECOND))
            .notYetIf(IOException.class, e -> e.getMessage().startsWith("503"))
            .retry(
                () -> {
                  if (looks.incrementAndGet() < 3) {
                    throw new IOException("503 no leader");
                  }
                  return "42";
                });

    assertEquals("42", result);
    assertEquals(List.of(TEN_MS, TEN_MS), pauses);
  }

  @Test
  void retryThrowsTheLastFailureItselfOnceTheDeadlinePassed() {
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                fake(Poll.every(TEN_MS).within(Duration.ofMillis(30)))
                    .notYetOn(IOException.class)
                    .retry(
                        () -> {
                          throw new IOException("503 attempt " + looks.incrementAndGet());
                        }));

    assertEquals("503 attempt 4", e.getMessage());
  }

  @Test
  void retryPropagatesAFailureTheTestRefusesAtOnce() {
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                fake(Poll.every(TEN_MS).within(ONE_SECOND))
                    .notYetIf(IOException.class, x -> x.getMessage().startsWith("503"))
                    .retry(failing(new IOException("404 no such procedure"))));

    assertEquals("404 no such procedure", e.getMessage());
    assertEquals(1, looks.get());
    assertTrue(pauses.isEmpty());
  }

  @Test
  void badSettingsSayWhatIsAllowed() {
    IllegalArgumentException zero =
        assertThrows(IllegalArgumentException.class, () -> Poll.every(Duration.ZERO));
    assertEquals("pause must be positive, got PT0S", zero.getMessage());
    IllegalArgumentException inverted =
        assertThrows(IllegalArgumentException.class, () -> Poll.backoff(FIFTY_MS, TEN_MS));
    assertEquals(
        "the largest pause PT0.01S is shorter than the first PT0.05S", inverted.getMessage());
    assertThrows(
        IllegalArgumentException.class, () -> Poll.every(TEN_MS).within(Duration.ofMillis(-1)));
  }
}
