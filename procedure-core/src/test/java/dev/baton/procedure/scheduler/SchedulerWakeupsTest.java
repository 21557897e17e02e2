package dev.baton.procedure.scheduler;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Blocked workers are woken one at a time (PollerWakeups): these check that no queued procedure is
 * left behind while workers wait, and that stopping releases every waiter. Pollers wait with a
 * timeout of an hour, so only a wake can get them a procedure within the test's time.
 */
@Timeout(60)
class SchedulerWakeupsTest {
  private static final long POLL_FOREVER_MINUTES = 60;
  private static final Duration WITHIN = Duration.ofSeconds(20);
  private final List<Thread> pollers = new ArrayList<>();

  static Stream<Arguments> schedulers() {
    return Stream.of(
        Arguments.of("fifo", (Supplier<ProcedureScheduler>) FifoScheduler::new),
        Arguments.of("fair", (Supplier<ProcedureScheduler>) FairScheduler::new));
  }

  @AfterEach
  void stopPollers() throws InterruptedException {
    for (Thread t : pollers) {
      t.interrupt();
    }
    for (Thread t : pollers) {
      t.join(WITHIN.toMillis());
    }
  }

  private Thread poller(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    pollers.add(t);
    t.start();
    return t;
  }

  private void awaitAllBlocked() {
    await()
        .atMost(WITHIN)
        .until(() -> pollers.stream().allMatch(t -> t.getState() == Thread.State.TIMED_WAITING));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schedulers")
  void aBurstReachesEveryBlockedWorkerWhileEachHoldsItsProcedure(
      String name, Supplier<ProcedureScheduler> make) throws Exception {
    ProcedureScheduler scheduler = make.get();
    scheduler.start();
    int workers = 4;
    CountDownLatch taken = new CountDownLatch(workers);
    CountDownLatch release = new CountDownLatch(1);
    for (int i = 0; i < workers; i++) {
      poller(
          "poller-" + i,
          () -> {
            try {
              if (scheduler.poll(POLL_FOREVER_MINUTES, TimeUnit.MINUTES) != null) {
                taken.countDown();
                release.await(); // a long step: this worker takes nothing more
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
    }
    awaitAllBlocked();
    for (int i = 0; i < workers; i++) {
      scheduler.addFront(new TestProc("p" + i));
    }
    assertTrue(
        taken.await(WITHIN.toMillis(), TimeUnit.MILLISECONDS),
        "every blocked worker got one of the burst; still queued: " + scheduler.size());
    assertEquals(0, scheduler.size());
    release.countDown();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schedulers")
  void everyProcedureOfConcurrentProducersIsTakenExactlyOnce(
      String name, Supplier<ProcedureScheduler> make) throws Exception {
    ProcedureScheduler scheduler = make.get();
    scheduler.start();
    int producers = 4;
    int perProducer = 5_000;
    int total = producers * perProducer;
    Set<Schedulable> seen = ConcurrentHashMap.newKeySet();
    AtomicInteger duplicates = new AtomicInteger();
    CountDownLatch all = new CountDownLatch(total);
    for (int i = 0; i < 4; i++) {
      poller(
          "consumer-" + i,
          () -> {
            try {
              while (!Thread.currentThread().isInterrupted()) {
                Schedulable p = scheduler.poll(POLL_FOREVER_MINUTES, TimeUnit.MINUTES);
                if (p == null) {
                  return;
                }
                if (!seen.add(p)) {
                  duplicates.incrementAndGet();
                }
                all.countDown();
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
    }
    awaitAllBlocked();
    List<Thread> producerThreads = new ArrayList<>();
    for (int i = 0; i < producers; i++) {
      int id = i;
      Thread t =
          new Thread(
              () -> {
                for (int j = 0; j < perProducer; j++) {
                  TestProc p = new TestProc(id + "-" + j);
                  if (j % 2 == 0) {
                    scheduler.addBack(p);
                  } else {
                    scheduler.addFront(p);
                  }
                }
              });
      producerThreads.add(t);
      t.start();
    }
    for (Thread t : producerThreads) {
      t.join(WITHIN.toMillis());
    }
    assertTrue(
        all.await(WITHIN.toMillis(), TimeUnit.MILLISECONDS),
        "taken "
            + (total - all.getCount())
            + " of "
            + total
            + "; still queued "
            + scheduler.size());
    assertEquals(total, seen.size());
    assertEquals(0, duplicates.get());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("schedulers")
  void stopReleasesEveryBlockedWorkerAtOnce(String name, Supplier<ProcedureScheduler> make)
      throws Exception {
    ProcedureScheduler scheduler = make.get();
    scheduler.start();
    int workers = 3;
    CountDownLatch returned = new CountDownLatch(workers);
    List<Object> results = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      poller(
          "stopped-" + i,
          () -> {
            try {
              Schedulable p = scheduler.poll(POLL_FOREVER_MINUTES, TimeUnit.MINUTES);
              synchronized (results) {
                results.add(p == null ? "null" : p);
              }
              returned.countDown();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
    }
    awaitAllBlocked();
    scheduler.stop();
    assertTrue(
        returned.await(WITHIN.toMillis(), TimeUnit.MILLISECONDS),
        "a worker blocked in poll returns when the scheduler stops, not at its poll timeout");
    assertEquals(List.of("null", "null", "null"), results);
    assertNull(scheduler.poll(0, TimeUnit.MILLISECONDS));
  }
}
