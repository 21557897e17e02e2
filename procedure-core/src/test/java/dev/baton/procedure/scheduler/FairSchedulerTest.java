package dev.baton.procedure.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class FairSchedulerTest {
  private static final ResourceKey A = ResourceKey.region("db", "a");
  private static final ResourceKey B = ResourceKey.region("db", "b");
  private static final ResourceKey C = ResourceKey.region("db", "c");
  private FairScheduler scheduler;

  @BeforeEach
  void start() {
    scheduler = new FairScheduler();
    scheduler.start();
  }

  private List<String> drain(FairScheduler s) throws InterruptedException {
    List<String> out = new ArrayList<>();
    Schedulable p;
    while ((p = s.poll(0, TimeUnit.MILLISECONDS)) != null) {
      out.add(p.toString());
    }
    return out;
  }

  @Test
  void queuesOfOneClassAreServedRoundRobin() throws Exception {
    for (String label : List.of("a1", "a2", "a3")) {
      scheduler.addBack(new TestProc(label, A));
    }
    scheduler.addBack(new TestProc("b1", B));
    scheduler.addBack(new TestProc("c1", C));
    scheduler.addBack(new TestProc("c2", C));
    assertEquals(6, scheduler.size());
    assertEquals(3, scheduler.queueCount());
    assertEquals(List.of("a1", "b1", "c1", "a2", "c2", "a3"), drain(scheduler));
    assertEquals(0, scheduler.size());
    assertEquals(0, scheduler.queueCount(), "empty queues are removed");
  }

  @Test
  void yieldGoesToTheBackOfItsQueueAndContinuationToTheFront() throws Exception {
    TestProc a1 = new TestProc("a1", A);
    scheduler.addBack(a1);
    scheduler.addBack(new TestProc("a2", A));
    assertSame(a1, scheduler.poll(0, TimeUnit.MILLISECONDS));
    scheduler.addBack(a1); // yielded
    assertEquals(List.of("a2", "a1"), drain(scheduler));

    scheduler.addBack(new TestProc("a3", A));
    scheduler.addFront(new TestProc("a4", A)); // a continuation runs first within its queue
    assertEquals(List.of("a4", "a3"), drain(scheduler));
  }

  @Test
  void higherPriorityClassesGoFirstByDefaultNodeDatabaseRegionOther() throws Exception {
    scheduler.addBack(new TestProc("other"));
    scheduler.addBack(new TestProc("region", A));
    scheduler.addBack(new TestProc("database", ResourceKey.database("db")));
    scheduler.addBack(new TestProc("node", ResourceKey.node("n1")));
    scheduler.addBack(new TestProc("other-null", null));
    assertEquals(List.of("node", "database", "region", "other", "other-null"), drain(scheduler));
  }

  @Test
  void prioritiesAreConfigurableAndEqualPrioritiesShareARing() throws Exception {
    FairScheduler s =
        FairScheduler.builder()
            .priority(ResourceType.REGION, 50)
            .priority(ResourceType.NODE, 5)
            .priority(ResourceType.DATABASE, 5)
            .otherPriority(100)
            .build();
    s.start();
    s.addBack(new TestProc("node1", ResourceKey.node("n1")));
    s.addBack(new TestProc("node2", ResourceKey.node("n1")));
    s.addBack(new TestProc("db1", ResourceKey.database("db")));
    s.addBack(new TestProc("region", A));
    s.addBack(new TestProc("other"));
    assertEquals(List.of("other", "region", "node1", "db1", "node2"), drain(s));
  }

  @Test
  void floodOfYieldingProceduresOnOneResourceDelaysAnotherByOneStep() throws Exception {
    for (int i = 0; i < 1_000; i++) {
      scheduler.addBack(new TestProc("a" + i, A));
    }
    // a's run one step each and yield; b arrives after the flood
    for (int i = 0; i < 10; i++) {
      scheduler.addBack(scheduler.poll(0, TimeUnit.MILLISECONDS));
    }
    scheduler.addBack(new TestProc("b", B));
    int polls = 0;
    while (true) {
      Schedulable p = scheduler.poll(0, TimeUnit.MILLISECONDS);
      polls++;
      if (p.toString().equals("b")) {
        break;
      }
      scheduler.addBack(p);
    }
    assertTrue(polls <= 2, "b waited " + polls + " polls behind the flood");
  }

  @Test
  void tenThousandResourceQueuesComeAndGo() throws Exception {
    for (int i = 0; i < 10_000; i++) {
      scheduler.addBack(new TestProc("r" + i, ResourceKey.region("db", "r" + i)));
    }
    assertEquals(10_000, scheduler.queueCount());
    assertEquals(10_000, drain(scheduler).size());
    assertEquals(0, scheduler.queueCount());
  }

  @Test
  void randomChurnOverManyQueuesKeepsEveryProcedureAndTheOrderWithinEachResource()
      throws Exception {
    long seed = Long.getLong("baton.seed", System.nanoTime());
    Random random = new Random(seed);
    Map<ResourceKey, ArrayDeque<TestProc>> model = new HashMap<>();
    int queued = 0;
    for (int op = 0; op < 200_000; op++) {
      if (queued == 0 || random.nextInt(10) < 6) {
        // a fresh but equal key object each time: lookups go through equals
        ResourceKey key = ResourceKey.region("db", "r" + random.nextInt(2_000));
        TestProc p = new TestProc("p" + op, key);
        scheduler.addBack(p);
        model.computeIfAbsent(key, k -> new ArrayDeque<>()).addLast(p);
        queued++;
      } else {
        TestProc p = (TestProc) scheduler.poll(0, TimeUnit.MILLISECONDS);
        ArrayDeque<TestProc> q = model.get(p.resource);
        assertSame(q.pollFirst(), p, "seed " + seed + ": order within " + p.resource);
        if (q.isEmpty()) {
          model.remove(p.resource);
        }
        queued--;
      }
    }
    assertEquals(model.size(), scheduler.queueCount(), "seed " + seed);
    assertEquals(queued, scheduler.size());
    Schedulable p;
    while ((p = scheduler.poll(0, TimeUnit.MILLISECONDS)) != null) {
      TestProc t = (TestProc) p;
      assertSame(model.get(t.resource).pollFirst(), t, "seed " + seed);
    }
    assertTrue(model.values().stream().allMatch(ArrayDeque::isEmpty), "seed " + seed);
    assertEquals(0, scheduler.queueCount());
  }

  @Test
  void pollWaitsForAnAdditionAndStopReleasesPollers() throws Exception {
    CountDownLatch polling = new CountDownLatch(1);
    CompletableFuture<Schedulable> first =
        CompletableFuture.supplyAsync(
            () -> {
              polling.countDown();
              try {
                return scheduler.poll(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    polling.await();
    TestProc p = new TestProc("p", A);
    scheduler.addBack(p);
    assertSame(p, first.get(10, TimeUnit.SECONDS));

    CountDownLatch polling2 = new CountDownLatch(1);
    CompletableFuture<Schedulable> second =
        CompletableFuture.supplyAsync(
            () -> {
              polling2.countDown();
              try {
                return scheduler.poll(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    polling2.await();
    scheduler.stop();
    assertNull(second.get(10, TimeUnit.SECONDS));
    scheduler.addBack(p);
    assertNull(scheduler.poll(0, TimeUnit.MILLISECONDS), "a stopped scheduler hands out nothing");
    scheduler.clear();
    assertEquals(0, scheduler.size());
  }
}
