package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The timeout queue over an injected clock. */
@Timeout(10)
class TimeoutQueueTest {
  private final AtomicLong clock = new AtomicLong(1_000);
  private final TimeoutQueue queue = new TimeoutQueue(clock::get);
  private final ScriptedStep a = new ScriptedStep("a");
  private final ScriptedStep b = new ScriptedStep("b");

  @Test
  void expiredEntriesComeOutEarliestDeadlineFirstThenInInsertionOrder() throws Exception {
    ScriptedStep c = new ScriptedStep("c");
    queue.add(1_300, TimeoutQueue.Kind.WAIT_EXPIRED, a);
    queue.add(1_100, TimeoutQueue.Kind.PROCEDURE_DEADLINE, b);
    queue.add(1_100, TimeoutQueue.Kind.RETRY_STEP, c);

    clock.set(1_200);
    TimeoutQueue.Entry first = queue.takeExpired(0);
    TimeoutQueue.Entry second = queue.takeExpired(0);
    assertSame(b, first.proc());
    assertEquals(TimeoutQueue.Kind.PROCEDURE_DEADLINE, first.kind());
    assertSame(c, second.proc());
    assertEquals(1, queue.size(), "a is not due yet");

    clock.set(1_300);
    assertSame(a, queue.takeExpired(0).proc());
    assertEquals(0, queue.size());
  }

  @Test
  void cancelledDeadlinesNeverFireAndLetGoOfTheirProcedure() throws Exception {
    queue.add(1_100, TimeoutQueue.Kind.WAIT_EXPIRED, a);
    queue.add(1_200, TimeoutQueue.Kind.PROCEDURE_DEADLINE, a);
    queue.add(1_300, TimeoutQueue.Kind.WAIT_EXPIRED, b);
    queue.add(1_400, TimeoutQueue.Kind.LOCK_WAIT_EXPIRED, b);

    queue.cancel(a, TimeoutQueue.Kind.WAIT_EXPIRED);
    queue.cancelAll(b);
    assertEquals(1, queue.size());
    assertNull(
        a.timeoutChain().firstTimeoutEntry().nextOfSameProcedure(),
        "a keeps only its procedure deadline");
    assertNull(b.timeoutChain().firstTimeoutEntry(), "nothing of b is left");

    clock.set(2_000);
    TimeoutQueue.Entry only = queue.takeExpired(0);
    assertSame(a, only.proc());
    assertEquals(TimeoutQueue.Kind.PROCEDURE_DEADLINE, only.kind());
    assertNull(queue.takeExpired(0));
    assertNull(a.timeoutChain().firstTimeoutEntry(), "a fired entry leaves its procedure's chain");
    assertEquals(0, queue.size());
  }

  @Test
  void takeExpiredGivesUpAfterTheMaximumWaitWhenNothingIsDue() throws Exception {
    TimeoutQueue queue = new TimeoutQueue(System::currentTimeMillis);
    queue.add(System.currentTimeMillis() + 3_600_000, TimeoutQueue.Kind.WAIT_EXPIRED, null);
    assertNull(queue.takeExpired(20));
    assertEquals(1, queue.size());
  }

  @Test
  void anAddedEntryThatIsAlreadyDueEndsTheWait() throws Exception {
    TimeoutQueue queue = new TimeoutQueue(System::currentTimeMillis);
    ScriptedStep p = new ScriptedStep("p");
    Thread adder =
        new Thread(() -> queue.add(System.currentTimeMillis(), TimeoutQueue.Kind.RETRY_STEP, p));
    adder.start();
    TimeoutQueue.Entry e = queue.takeExpired(60_000);
    adder.join();
    // without the add waking it, this would wait a minute and the class timeout would fail it
    assertSame(p, e == null ? null : e.proc());
  }
}
