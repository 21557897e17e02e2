package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Waiters on records: woken by a change of their record, by a loaded snapshot, or forgotten. */
@Timeout(30)
class RecordWatchTest {
  private static final long WAIT_SECONDS = 10;

  private final RecordWatch watch = new RecordWatch("test");

  @Test
  void aChangeWakesTheWaitersOfItsRecordOnly() throws Exception {
    CompletableFuture<Void> a1 = watch.next(1);
    CompletableFuture<Void> a2 = watch.next(1);
    CompletableFuture<Void> b = watch.next(2);
    watch.changed(1);
    a1.get(WAIT_SECONDS, TimeUnit.SECONDS);
    a2.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertFalse(b.isDone());
    assertEquals(1, watch.waiterCount());
  }

  @Test
  void aReplacedTableWakesEveryWaiter() throws Exception {
    CompletableFuture<Void> a = watch.next(1);
    CompletableFuture<Void> b = watch.next(2);
    watch.changedAll();
    CompletableFuture.allOf(a, b).get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertEquals(0, watch.waiterCount());
  }

  @Test
  void aForgottenWaiterIsNotKept() {
    CompletableFuture<Void> a = watch.next(1);
    CompletableFuture<Void> b = watch.next(1);
    watch.forget(1, a);
    assertEquals(1, watch.waiterCount());
    watch.forget(1, b);
    assertEquals(0, watch.waiterCount());
    watch.changed(1);
    assertFalse(a.isDone());
  }
}
