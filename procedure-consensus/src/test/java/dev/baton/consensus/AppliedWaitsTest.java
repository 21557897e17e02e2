package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AppliedWaitsTest {
  private final AppliedWaits waits = new AppliedWaits();

  @Test
  void anAppliedIndexIsReadyAtOnce() {
    waits.reached(7);
    assertTrue(waits.await(7).isDone());
    assertTrue(waits.await(3).isDone());
    assertEquals(0, waits.waiting());
  }

  @Test
  void aWaitCompletesWhenItsIndexIsReachedAndNotBefore() {
    waits.reached(1);
    CompletableFuture<Void> five = waits.await(5);
    CompletableFuture<Void> nine = waits.await(9);
    assertFalse(five.isDone());
    waits.reached(4);
    assertFalse(five.isDone());
    waits.reached(6);
    assertTrue(five.isDone());
    assertFalse(nine.isDone());
    assertEquals(1, waits.waiting());
    waits.reached(9);
    assertTrue(nine.isDone());
    assertEquals(0, waits.waiting());
  }

  @Test
  void readsOfTheSameIndexShareOneWait() {
    CompletableFuture<Void> first = waits.await(3);
    CompletableFuture<Void> second = waits.await(3);
    assertEquals(1, waits.waiting());
    waits.reached(3);
    assertTrue(first.isDone() && second.isDone());
  }

  /** An apply racing each wait's registration never leaves a wait for an applied index behind. */
  @Test
  void noWaitIsLostToAConcurrentApply() throws Exception {
    int indexes = 200_000;
    CountDownLatch start = new CountDownLatch(1);
    Thread applier =
        new Thread(
            () -> {
              try {
                start.await();
              } catch (InterruptedException e) {
                return;
              }
              for (long i = 1; i <= indexes; i++) {
                waits.reached(i);
              }
            });
    applier.start();
    List<CompletableFuture<Void>> all = new ArrayList<>();
    start.countDown();
    for (long i = 1; i <= indexes; i += 7) {
      all.add(waits.await(i));
    }
    applier.join();
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    assertEquals(0, waits.waiting());
  }
}
