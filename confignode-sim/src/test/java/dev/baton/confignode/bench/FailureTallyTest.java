package dev.baton.confignode.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A phase's failures: counted by message, the most common shown, the messages kept short. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class FailureTallyTest {
  private static final FailureTally.Limits NO_STOP =
      new FailureTally.Limits(FailureTally.Limits.UNLIMITED, Duration.ofHours(1));

  @Test
  void theMostCommonMessagesComeFirstTiesInTheOrderTheyAppeared() {
    FailureTally tally = new FailureTally("procedures", NO_STOP);
    for (String m : List.of("a", "b", "c", "b", "d", "c", "b", "d")) {
      tally.failed(m);
    }

    PhaseFailures f = tally.summary();
    assertEquals(8, f.count());
    assertEquals("8 failed: 3 × b; 2 × c; 2 × d", f.describe());
    assertFalse(tally.stopped());
  }

  @Test
  void anExceptionIsItsTypeAndMessageOnOneShortLine() {
    FailureTally tally = new FailureTally("procedures", NO_STOP);
    tally.failed(FailureTally.describe(new IOException("no node\n answered")));
    tally.failed(FailureTally.describe(new IllegalStateException()));
    tally.failed("x".repeat(FailureTally.MAX_MESSAGE_CHARS + 1));

    assertEquals(
        List.of(
            new PhaseFailures.ErrorCount("IOException: no node answered", 1),
            new PhaseFailures.ErrorCount("IllegalStateException", 1),
            new PhaseFailures.ErrorCount("x".repeat(FailureTally.MAX_MESSAGE_CHARS) + "...", 1)),
        tally.summary().errors());
  }

  @Test
  void messagesBeyondTheDistinctBoundAreCountedTogether() {
    FailureTally tally = new FailureTally("procedures", NO_STOP);
    for (int i = 0; i < FailureTally.MAX_DISTINCT + 5; i++) {
      tally.failed("procedure " + i);
    }
    tally.failed("procedure 0");

    PhaseFailures f = tally.summary();
    assertEquals(FailureTally.MAX_DISTINCT + 6, f.count());
    assertEquals(new PhaseFailures.ErrorCount(FailureTally.OTHER, 5), f.errors().get(0));
    assertEquals(new PhaseFailures.ErrorCount("procedure 0", 2), f.errors().get(1));
  }
}
