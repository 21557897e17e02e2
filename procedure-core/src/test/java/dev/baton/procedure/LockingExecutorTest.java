package dev.baton.procedure;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.scheduler.LockInfo;
import dev.baton.procedure.scheduler.LockMode;
import dev.baton.procedure.store.InMemoryProcedureStore;
import dev.baton.procedure.testing.ProcedureTestKit;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Resource locks through the executor: wake-up, FIFO, timeouts, views, recovery of held locks. */
@Timeout(60)
class LockingExecutorTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final long HOUR = 3_600_000;
  private final LockEnv env = new LockEnv();
  private final InMemoryProcedureStore store = new InMemoryProcedureStore();
  private ProcedureExecutor<LockEnv> executor;

  private ProcedureExecutor<LockEnv> start() throws Exception {
    executor =
        ProcedureExecutor.builder(env, store, LockStep.registry())
            .lockManager(env.locks)
            .coreWorkers(4)
            .build();
    executor.start();
    return executor;
  }

  @AfterEach
  void stop() {
    if (executor != null) {
      executor.stop();
    }
  }

  private Optional<LockInfo> lock(String resource) {
    return executor.locks().stream().filter(l -> l.resource().equals(resource)).findFirst();
  }

  private List<Long> waiters(String resource) {
    return lock(resource)
        .map(l -> l.waiters().stream().map(LockInfo.Waiter::procId).toList())
        .orElse(List.of());
  }

  private List<Long> holders(String resource) {
    return lock(resource)
        .map(l -> l.holders().stream().map(LockInfo.Holder::procId).toList())
        .orElse(List.of());
  }

  private ProcedureState state(long id) {
    return executor.getInfo(id).orElseThrow().state();
  }

  @Test
  void parkedWaitersRunWhenTheHolderReleasesInArrivalOrderWithoutPolling() throws Exception {
    start();
    long h = executor.submit(new LockStep("h").exclusive("region:db/r1").gate("g"));
    await().atMost(WAIT).until(() -> env.indexOf("exec h:0") >= 0);
    long[] w = new long[3];
    for (int i = 0; i < w.length; i++) {
      w[i] = executor.submit(new LockStep("w" + i).exclusive("region:db/r1"));
      int parked = i + 1;
      await().atMost(WAIT).until(() -> waiters("region:db/r1").size() == parked);
    }
    assertEquals(List.of(h), holders("region:db/r1"));
    assertEquals(List.of(w[0], w[1], w[2]), waiters("region:db/r1"));
    LockInfo region = lock("region:db/r1").orElseThrow();
    assertEquals(LockMode.EXCLUSIVE, region.mode());
    assertTrue(region.heldSince() > 0, region.toString());
    LockInfo db = lock("database:db").orElseThrow();
    assertEquals(LockMode.SHARED, db.mode(), "a region lock takes its database shared: " + db);
    assertEquals(List.of(h), holders("database:db"));
    for (long id : w) {
      assertEquals(ProcedureState.RUNNABLE, state(id));
      assertTrue(
          executor.waitReason(id).orElseThrow().contains("held by procedure " + h),
          executor.waitReason(id).toString());
    }

    env.open("g");
    for (long id : w) {
      assertEquals(ProcedureState.SUCCESS, executor.await(id, WAIT).state());
    }
    List<String> journal = env.journal();
    int held = journal.indexOf("exec h:0");
    int w0 = journal.indexOf("exec w0:0");
    int w1 = journal.indexOf("exec w1:0");
    int w2 = journal.indexOf("exec w2:0");
    assertTrue(held < w0 && w0 < w1 && w1 < w2, journal.toString());
    for (int i = 0; i < w.length; i++) {
      // parked once, granted once: nobody polled the lock
      assertEquals(2, env.acquireCalls("w" + i), "acquireLock calls of w" + i);
    }
    await().atMost(WAIT).until(() -> executor.locks().isEmpty());
  }

  @Test
  void lockWaitTimeoutFailsTheWaiterNamingTheLockAndItsHolder() throws Exception {
    start();
    long h =
        executor.submit(
            new LockStep("h").exclusive("region:db/r1").hold().steps(2).waitAfterFirst(HOUR));
    await().atMost(WAIT).until(() -> state(h) == ProcedureState.WAITING_TIMEOUT);
    long w = executor.submit(new LockStep("w").exclusive("region:db/r1").lockWaitTimeout(200));
    ProcedureInfo failed = executor.await(w, WAIT);
    assertEquals(ProcedureState.ROLLEDBACK, failed.state());
    String failure = failed.failure();
    assertTrue(failure.contains("lock wait timeout of 200 ms"), failure);
    assertTrue(failure.contains("region:db/r1 (EXCLUSIVE)"), failure);
    assertTrue(failure.contains("held by procedure " + h + " (EXCLUSIVE)"), failure);
    assertEquals(-1, env.indexOf("exec w:0"), "the waiter never ran");
    assertEquals(List.of(h), holders("region:db/r1"));
    assertEquals(List.of(), waiters("region:db/r1"));

    executor.wake(h);
    assertEquals(ProcedureState.SUCCESS, executor.await(h, WAIT).state());
    await().atMost(WAIT).until(() -> executor.locks().isEmpty());
  }

  @Test
  void locksHeldAcrossStepsAreRetakenOnRestartBeforeAnyOtherProcedureRuns() throws Exception {
    start();
    long h =
        executor.submit(
            new LockStep("h").exclusive("region:db/r1").hold().steps(2).waitAfterFirst(HOUR));
    // n locks only for its steps: its record says "lock held" (persisted with the step), but
    // the lock was released right after; after a restart it must not be taken again
    long n =
        executor.submit(new LockStep("n").exclusive("region:db/r2").steps(2).waitAfterFirst(HOUR));
    await()
        .atMost(WAIT)
        .until(
            () ->
                state(h) == ProcedureState.WAITING_TIMEOUT
                    && state(n) == ProcedureState.WAITING_TIMEOUT);
    long w = executor.submit(new LockStep("w").exclusive("region:db/r1"));
    await().atMost(WAIT).until(() -> waiters("region:db/r1").equals(List.of(w)));
    assertEquals(List.of(), holders("region:db/r2"));
    executor.stop();

    start();
    assertEquals(List.of(h), holders("region:db/r1"), "re-taken during recovery");
    assertEquals(List.of(h), holders("database:db"));
    assertEquals(List.of(), holders("region:db/r2"), "a lock not held across steps stays free");
    await().atMost(WAIT).until(() -> waiters("region:db/r1").equals(List.of(w)));
    assertEquals(-1, env.indexOf("exec w:0"), "w must not run while h holds the lock");
    long m = executor.submit(new LockStep("m").exclusive("region:db/r2"));
    assertEquals(ProcedureState.SUCCESS, executor.await(m, WAIT).state());

    executor.wake(h);
    assertEquals(ProcedureState.SUCCESS, executor.await(w, WAIT).state());
    assertEquals(ProcedureState.SUCCESS, executor.await(h, WAIT).state());
    assertTrue(env.indexOf("exec h:1") < env.indexOf("exec w:0"), env.journal().toString());
    executor.wake(n);
    assertEquals(ProcedureState.SUCCESS, executor.await(n, WAIT).state());
    await().atMost(WAIT).until(() -> executor.locks().isEmpty());
  }

  @Test
  void failedProcedureReleasesItsLocksAfterRollingBackUnderThem() throws Exception {
    start();
    long f = executor.submit(new LockStep("f").exclusive("region:db/r1").hold().steps(3).failAt(1));
    long g = executor.submit(new LockStep("g").exclusive("region:db/r1").steps(2));
    assertEquals(ProcedureState.ROLLEDBACK, executor.await(f, WAIT).state());
    assertEquals(ProcedureState.SUCCESS, executor.await(g, WAIT).state());
    List<String> journal = env.journal();
    // f holds its lock from its first step to the end of its rollback: g runs before or after
    int gFirst = journal.indexOf("exec g:0");
    int fFirst = journal.indexOf("exec f:0");
    int fLastRollback = journal.lastIndexOf("rollback f");
    assertTrue(fLastRollback > fFirst, journal.toString());
    assertTrue(gFirst < fFirst || gFirst > fLastRollback, journal.toString());
    await().atMost(WAIT).until(() -> executor.locks().isEmpty());
  }

  @Test
  void aStepRetriedAfterABackoffSaysUntilWhen() throws Exception {
    TestEnv testEnv = new TestEnv();
    try (ProcedureExecutor<TestEnv> retrying =
        ProcedureExecutor.builder(testEnv, new InMemoryProcedureStore(), Steps.registry())
            .retryBackoff(Duration.ofSeconds(2), Duration.ofSeconds(2))
            .build()) {
      retrying.start();
      testEnv.failNext("p:B", 1);
      Steps p = new Steps("p");
      p.unsupportedB = true; // B cannot be rolled back: its failure is retried after a backoff
      long id = retrying.submit(p);
      await().atMost(WAIT).until(() -> retrying.waitReason(id).isPresent());
      String reason = retrying.waitReason(id).orElseThrow();
      assertTrue(reason.startsWith("retrying failed step B; backoff until "), reason);
      assertEquals(ProcedureState.SUCCESS, retrying.await(id, WAIT).state());
      assertEquals(Optional.empty(), retrying.waitReason(id));
    }
  }

  @Test
  void testKitRestartsALockingProcedureAtEveryStepWithTheEnvironmentsLockManager() {
    ProcedureTestKit.RecoveryReport report =
        ProcedureTestKit.assertRecoversAtEveryStep(
            LockStep.registry(),
            LockEnv::new,
            () -> new LockStep("k").exclusive("region:db/r1").shared("node:n1").hold().steps(3),
            e -> e.locks.size());
    assertEquals(ProcedureState.SUCCESS, report.actual().state());
    assertTrue(report.restarts() > 3, "restarts: " + report.restarts());
  }

  @Test
  void waitReasonsNameWhatAProcedureWaitsFor() throws Exception {
    executor =
        ProcedureExecutor.builder(env, store, LockStep.registry())
            .lockManager(env.locks)
            .coreWorkers(4)
            .limit("Limited", 1)
            .build();
    executor.start();
    long h = executor.submit(new LockStep("h").exclusive("region:db/r1").gate("g"));
    await().atMost(WAIT).until(() -> env.indexOf("exec h:0") >= 0);
    long w = executor.submit(new LockStep("w").exclusive("region:db/r1"));
    long l1 = executor.submit(new LockStep.Limited("l1").gate("lg"));
    await().atMost(WAIT).until(() -> env.indexOf("exec l1:0") >= 0);
    long l2 = executor.submit(new LockStep.Limited("l2"));
    long parent =
        executor.submit(
            new LockStep("p").steps(2).childrenAt(0, List.of(new LockStep("c").gate("cg"))));
    long timed = executor.submit(new LockStep("t").steps(2).waitAfterFirst(HOUR));

    await().atMost(WAIT).until(() -> executor.waitReason(w).isPresent());
    assertTrue(
        executor
            .waitReason(w)
            .orElseThrow()
            .startsWith("waiting for lock region:db/r1 (EXCLUSIVE) held by procedure " + h),
        executor.waitReason(w).toString());
    // the same reason (read twice, a millisecond may pass: the held-for time is left out)
    assertEquals(
        executor.waitReason(w).orElseThrow().replaceAll(" for \\d+ ms", ""),
        executor.getInfo(w).orElseThrow().waitReason().replaceAll(" for \\d+ ms", ""));

    await().atMost(WAIT).until(() -> executor.waitReason(l2).isPresent());
    assertTrue(
        executor.waitReason(l2).orElseThrow().contains("limit of type Limited is full (1 of 1"),
        executor.waitReason(l2).toString());
    assertEquals(List.of(l1), executor.limits().get(0).running());
    assertEquals(List.of(l2), executor.limits().get(0).waiting());

    await().atMost(WAIT).until(() -> state(parent) == ProcedureState.WAITING);
    assertEquals("waiting for 1 child", executor.waitReason(parent).orElseThrow());
    await().atMost(WAIT).until(() -> state(timed) == ProcedureState.WAITING_TIMEOUT);
    assertTrue(
        executor.waitReason(timed).orElseThrow().startsWith("waiting until "),
        executor.waitReason(timed).toString());
    assertEquals(Optional.empty(), executor.waitReason(h), "h is running");
    assertTrue(
        executor.list().stream()
            .filter(i -> i.procId() == w)
            .allMatch(i -> i.waitReason() != null && i.waitReason().contains("region:db/r1")));

    env.open("g");
    env.open("lg");
    env.open("cg");
    executor.wake(timed);
    for (long id : List.of(h, w, l1, l2, parent, timed)) {
      assertEquals(ProcedureState.SUCCESS, executor.await(id, WAIT).state(), "procedure " + id);
    }
    assertFalse(executor.getInfo(w).orElseThrow().waitReason() != null, "finished: no reason");
  }
}
