package dev.baton.confignode.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bench's load with operations that fail: a failure is counted and the run does all it was
 * asked, the percentiles are of the successful operations, and a run whose operations all fail
 * stops within its bound (or past its failures' count) saying what failed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LoadTest {
  private static final Duration LONG = Duration.ofMinutes(1);
  private static final FailureTally.Limits UNLIMITED =
      new FailureTally.Limits(FailureTally.Limits.UNLIMITED, LONG);

  /** A successful operation's submission answer, as its sample reports it. */
  private static final long SUBMIT_NANOS = 1_000_000;

  /** Every 5th call of an operation fails. */
  private static final int EVERY = 5;

  private static final double EXACT = 1e-9;

  /** How long an operation of the stopping test takes: longer than the open loop's interval. */
  private static final long OPERATION_NANOS = 5_000_000;

  /** Calls {@code n} with {@code n % EVERY == 0} throw; the others succeed. */
  private static Load.Op throwingEvery5th(AtomicInteger calls) {
    return () -> {
      int n = calls.incrementAndGet();
      if (n % EVERY == 0) {
        throw new IOException("connection refused");
      }
      return Load.Sample.succeeded(n, SUBMIT_NANOS);
    };
  }

  @ParameterizedTest(name = "{0} loop")
  @ValueSource(strings = {"closed", "open"})
  void failuresAreCountedAndEveryOperationIsDone(String loop) throws Exception {
    AtomicInteger calls = new AtomicInteger();
    Load.Op op = throwingEvery5th(calls);
    // the open loop at 1,000/s: 100 ms
    try (Load load = new Load(3, 1000, UNLIMITED)) {
      Load.Run run =
          loop.equals("closed")
              ? load.closedLoop("procedures", 100, op)
              : load.openLoop("procedures", 100, op);

      assertEquals(100, calls.get());
      assertEquals(100, run.count());
      assertEquals(20, run.failed());
      assertEquals(80, run.succeeded());
      assertEquals(
          new PhaseFailures(
              "procedures",
              20,
              List.of(new PhaseFailures.ErrorCount("IOException: connection refused", 20))),
          run.failures());
    }
  }

  @ParameterizedTest(name = "{0} loop")
  @ValueSource(strings = {"closed", "open"})
  void aLoadWhileAskedStopsWhenToldAndWaitsForWhatItStarted(String loop) throws Exception {
    int wanted = 60;
    AtomicInteger asked = new AtomicInteger();
    AtomicInteger calls = new AtomicInteger();
    Load.Op op =
        () -> {
          int n = calls.incrementAndGet();
          // an operation's own latency, so that some are in flight when the load is told to stop
          LockSupport.parkNanos(OPERATION_NANOS);
          return Load.Sample.succeeded(n, SUBMIT_NANOS);
        };
    // the open loop at 1,000/s: 60 ms
    try (Load load = new Load(3, 1000, UNLIMITED)) {
      Load.Run run =
          loop.equals("closed")
              ? load.closedLoopWhile("warm-up", () -> asked.incrementAndGet() <= wanted, op)
              : load.openLoopWhile("warm-up", () -> asked.incrementAndGet() <= wanted, op);
      // every operation started is answered and counted before the run returns
      assertEquals(wanted, calls.get());
      assertEquals(wanted, run.count());
      assertEquals(wanted, run.succeeded());
    }
  }

  @Test
  void aPhaseThatRanNothingCountsNothing() {
    try (Load load = new Load(3, 0, UNLIMITED)) {
      Load.Run none = load.none("warm-up");
      assertEquals(0, none.count());
      assertEquals(new PhaseFailures("warm-up", 0, List.of()), none.failures());
    }
  }

  @Test
  void percentilesAreOfTheSuccessfulOperationsOnly() throws Exception {
    // most operations fail: 2 of 5 throw (a sample of no submission), 1 of 5 is a procedure that
    // failed after a slow submission; counted, either would move every percentile
    AtomicInteger calls = new AtomicInteger();
    Load.Op op =
        () -> {
          int n = calls.incrementAndGet();
          return switch (n % EVERY) {
            case 0, 1 -> throw new IOException("timed out");
            case 2 -> Load.Sample.failed(n, 1000 * SUBMIT_NANOS, "ended ROLLEDBACK");
            default -> Load.Sample.succeeded(n, SUBMIT_NANOS);
          };
        };
    try (Load load = new Load(2, 0, UNLIMITED)) {
      // 97: the last call is a failed procedure, 2 of 5 throw (n % 5 = 0 or 1: 19 and 20)
      Load.Run run = load.closedLoop("procedures", 97, op);

      assertEquals(39 + 20, run.failed());
      Percentiles submit = run.submitLatencies();
      assertEquals(1.0, submit.p50(), EXACT);
      assertEquals(1.0, submit.p999(), EXACT);
      // the most common error first
      assertEquals(
          List.of(
              new PhaseFailures.ErrorCount("IOException: timed out", 39),
              new PhaseFailures.ErrorCount("ended ROLLEDBACK", 20)),
          run.failures().errors());
      // a failed procedure is still one the run saw
      assertEquals(97, run.lastId());
    }
  }

  @Test
  void aClosedLoopWhoseOperationsAllFailStopsWithinItsBound() throws Exception {
    Duration bound = Duration.ofMillis(300);
    Load.Op refused =
        () -> {
          throw new IOException("connection refused");
        };
    try (Load load =
        new Load(2, 0, new FailureTally.Limits(FailureTally.Limits.UNLIMITED, bound))) {
      long start = System.nanoTime();
      IOException e =
          assertThrows(IOException.class, () -> load.closedLoopFor("procedures", LONG, refused));
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertTrue(
          e.getMessage().startsWith("procedures: stopped, no operation succeeded in 0.3 s ("),
          e::getMessage);
      assertTrue(e.getMessage().contains(" × IOException: connection refused"), e::getMessage);
      assertTrue(took.compareTo(bound) >= 0, took::toString);
      assertTrue(took.compareTo(LONG) < 0, took::toString);
    }
  }

  @Test
  void anOpenLoopWhoseOperationsAllFailStopsWithinItsBound() throws Exception {
    Duration bound = Duration.ofMillis(300);
    Load.Op failing = () -> Load.Sample.failed(1, 0, "ended FAILED");
    // 10,000 operations at 100/s: 100 s if it did not stop
    try (Load load =
        new Load(1, 100, new FailureTally.Limits(FailureTally.Limits.UNLIMITED, bound))) {
      long start = System.nanoTime();
      IOException e =
          assertThrows(IOException.class, () -> load.openLoop("procedures", 10_000, failing));
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertTrue(e.getMessage().contains("no operation succeeded in 0.3 s"), e::getMessage);
      assertTrue(e.getMessage().contains(" × ended FAILED"), e::getMessage);
      assertTrue(took.compareTo(LONG) < 0, took::toString);
    }
  }

  @Test
  void moreFailuresThanAllowedStopTheRun() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    try (Load load = new Load(1, 0, new FailureTally.Limits(3, LONG))) {
      IOException e =
          assertThrows(
              IOException.class,
              () -> load.closedLoop("raw Raft baseline", 100, throwingEvery5th(calls)));

      assertEquals(
          "raw Raft baseline: stopped, more than 3 operations failed"
              + " (4 failed: 4 × IOException: connection refused)",
          e.getMessage());
      // one client: the 4th failure is the 20th call, and none follows it
      assertEquals(4 * EVERY, calls.get());
    }
  }

  @Test
  void noFailureAllowedStopsAtTheFirst() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    try (Load load = new Load(1, 0, new FailureTally.Limits(0, LONG))) {
      assertThrows(
          IOException.class, () -> load.closedLoop("procedures", 100, throwingEvery5th(calls)));
      assertEquals(EVERY, calls.get());
    }
  }
}
