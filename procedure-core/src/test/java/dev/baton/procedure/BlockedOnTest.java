package dev.baton.procedure;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.scheduler.LockMode;
import dev.baton.procedure.store.InMemoryProcedureStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a live procedure waits on, as data ({@link BlockedOn}), one test per kind the executor
 * makes, with its text ({@link ProcedureInfo#waitReason()}) and the chain to the root cause.
 */
@Timeout(60)
class BlockedOnTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final long HOUR = 3_600_000;
  private static final int WORKERS = 4;

  private final LockEnv env = new LockEnv();
  private final Harness calls =
      new Harness(
              CallingStep.registry()
                  .register("ScriptedStep", ScriptedStep.class, ScriptedStep::new))
          .with(b -> b.retryBackoff(Duration.ofHours(1), Duration.ofHours(1)));
  private ProcedureExecutor<LockEnv> executor;

  private ProcedureExecutor<LockEnv> start(
      UnaryOperator<ProcedureExecutor.Builder<LockEnv>> settings) throws Exception {
    executor =
        settings
            .apply(
                ProcedureExecutor.builder(env, new InMemoryProcedureStore(), LockStep.registry())
                    .lockManager(env.locks)
                    .coreWorkers(WORKERS))
            .build();
    executor.start();
    return executor;
  }

  @AfterEach
  void stop() {
    env.gates.values().forEach(java.util.concurrent.CountDownLatch::countDown);
    if (executor != null) {
      executor.stop();
    }
    calls.close();
  }

  private <T extends BlockedOn> T awaitBlocked(ProcedureExecutor<?> exec, long id, Class<T> kind) {
    BlockedOn b =
        await().atMost(WAIT).until(() -> exec.blockedOn(id).orElse(null), kind::isInstance);
    return kind.cast(b);
  }

  /** Waits until {@code id} of the calls executor is blocked on a call that {@code matches}. */
  private BlockedOn.ExternalCall awaitCall(
      long id, java.util.function.Predicate<BlockedOn.ExternalCall> matches) {
    return (BlockedOn.ExternalCall)
        await()
            .atMost(WAIT)
            .until(
                () -> calls.executor.blockedOn(id).orElse(null),
                b -> b instanceof BlockedOn.ExternalCall c && matches.test(c));
  }

  private static String withoutDurations(String text) {
    return text.replaceAll(" for \\d+ ms", "");
  }

  @Test
  void aParkedProcedureIsBlockedOnTheLockItsHolderAndSinceWhen() throws Exception {
    start(b -> b);
    long h = executor.submit(new LockStep("h").exclusive("region:db/r1").gate("g"));
    await().atMost(WAIT).until(() -> env.indexOf("exec h:0") >= 0);
    long w = executor.submit(new LockStep("w").exclusive("region:db/r1"));

    BlockedOn.Lock lock = awaitBlocked(executor, w, BlockedOn.Lock.class);
    assertEquals("lock", lock.kind());
    assertEquals("region:db/r1", lock.lock().resource());
    assertEquals(LockMode.EXCLUSIVE, lock.lock().wanted());
    assertEquals(h, lock.lock().holders().get(0).procId());
    assertEquals(LockMode.EXCLUSIVE, lock.lock().holders().get(0).mode());
    assertTrue(lock.lock().holders().get(0).since() > 0, lock.toString());
    assertTrue(lock.lock().waitingSince() >= lock.lock().holders().get(0).since(), lock.toString());
    assertEquals(List.of(h), lock.waitsFor());

    ProcedureInfo info = executor.getInfo(w).orElseThrow();
    assertInstanceOf(BlockedOn.Lock.class, info.blockedOn());
    assertEquals(
        withoutDurations(lock.describe(System.currentTimeMillis())),
        withoutDurations(info.waitReason()));

    WaitChain chain = executor.why(w).orElseThrow();
    assertEquals(List.of(w, h), chain.links().stream().map(WaitChain.Link::procId).toList());
    assertNull(chain.links().get(1).blockedOn(), "the holder runs");
    assertFalse(chain.cycle());
    assertEquals("procedure " + h + ": running", chain.rootCause());

    env.open("g");
    assertEquals(ProcedureState.SUCCESS, executor.await(w, WAIT).state());
    assertEquals(Optional.empty(), executor.blockedOn(w), "finished: blocked on nothing");
  }

  @Test
  void aParentIsBlockedOnItsUnfinishedChildren() throws Exception {
    start(b -> b);
    long parent =
        executor.submit(
            new LockStep("p")
                .childrenAt(
                    0, List.of(new LockStep("c1").gate("g1"), new LockStep("c2").gate("g2"))));
    BlockedOn.Children both = awaitBlocked(executor, parent, BlockedOn.Children.class);
    List<Long> children =
        executor.list().stream()
            .filter(i -> i.parentProcId() == parent)
            .map(ProcedureInfo::procId)
            .sorted()
            .toList();
    assertEquals(2, children.size(), executor.list().toString());
    assertEquals(children, both.unfinished());
    assertEquals(2, both.count());
    assertEquals("waiting for 2 children", executor.getInfo(parent).orElseThrow().waitReason());

    env.open("g1");
    executor.await(children.get(0), WAIT);
    BlockedOn.Children one =
        await()
            .atMost(WAIT)
            .until(
                () -> (BlockedOn.Children) executor.blockedOn(parent).orElseThrow(),
                c -> c.count() == 1);
    assertEquals(List.of(children.get(1)), one.unfinished());
    env.open("g2");
    assertEquals(ProcedureState.SUCCESS, executor.await(parent, WAIT).state());
  }

  @Test
  void aTimedWaitIsATimerUntilItsDeadline() throws Exception {
    start(b -> b);
    long before = System.currentTimeMillis();
    long t = executor.submit(new LockStep("t").steps(2).waitAfterFirst(HOUR));
    BlockedOn.Timer timer = awaitBlocked(executor, t, BlockedOn.Timer.class);
    assertEquals(BlockedOn.TimerPurpose.WAIT, timer.purpose());
    assertTrue(timer.until() >= before + HOUR, timer.toString());
    assertTrue(timer.until() <= System.currentTimeMillis() + HOUR, timer.toString());
    executor.wake(t);
    assertEquals(ProcedureState.SUCCESS, executor.await(t, WAIT).state());
  }

  @Test
  void aProcedureOverItsTypesLimitIsBlockedOnTheLimit() throws Exception {
    start(b -> b.limit("Limited", 1));
    long l1 = executor.submit(new LockStep.Limited("l1").gate("lg"));
    await().atMost(WAIT).until(() -> env.indexOf("exec l1:0") >= 0);
    long l2 = executor.submit(new LockStep.Limited("l2"));
    BlockedOn.ConcurrencyLimit limit = awaitBlocked(executor, l2, BlockedOn.ConcurrencyLimit.class);
    assertEquals("Limited", limit.slots().type());
    assertEquals(1, limit.slots().limit());
    assertEquals(1, limit.slots().inUse());
    assertEquals(0, limit.slots().ahead());
    assertTrue(
        limit.describe(0).contains("limit of type Limited is full (1 of 1"), limit::toString);
    env.open("lg");
    assertEquals(ProcedureState.SUCCESS, executor.await(l1, WAIT).state());
    assertEquals(ProcedureState.SUCCESS, executor.await(l2, WAIT).state());
  }

  @Test
  void aReadyProcedureWithEveryWorkerBusyIsBlockedOnNoFreeWorker() throws Exception {
    start(b -> b.coreWorkers(1).maxWorkers(1).stuckThreshold(Duration.ofHours(1)));
    long busy = executor.submit(new LockStep("busy").gate("bg"));
    await().atMost(WAIT).until(() -> env.indexOf("exec busy:0") >= 0);
    long queued = executor.submit(new LockStep("queued"));
    BlockedOn.NoFreeWorker none = awaitBlocked(executor, queued, BlockedOn.NoFreeWorker.class);
    assertEquals(1, none.workers());
    assertEquals(1, none.busy());
    assertEquals(1, none.queued());
    assertNull(executor.getInfo(queued).orElseThrow().waitReason(), "queued: no wait reason");
    assertEquals(Optional.empty(), executor.blockedOn(busy), "running without a call");
    env.open("bg");
    assertEquals(ProcedureState.SUCCESS, executor.await(queued, WAIT).state());
  }

  @Test
  void aSuspendedProcedureWithoutChildrenIsSuspended() throws Exception {
    calls.env.failNext("suspend p:A", 1);
    calls.start();
    long p = calls.executor.submit(new ScriptedStep("p"));
    BlockedOn.Suspended s = awaitBlocked(calls.executor, p, BlockedOn.Suspended.class);
    assertEquals("suspended until woken", s.describe(0));
    calls.executor.wake(p);
    assertEquals(ProcedureState.SUCCESS, calls.await(p).state());
  }

  @Test
  void aCallInFlightIsAnExternalCallWithItsAttemptAndTheLastError() throws Exception {
    calls.with(b -> b.retryBackoff(Duration.ofMillis(1), Duration.ofMillis(1)));
    calls.env.failNext("call", 1);
    java.util.concurrent.CountDownLatch gate = calls.env.gate("call");
    calls.start();
    long id = calls.executor.submit(new CallingStep());
    BlockedOn.ExternalCall call = awaitCall(id, c -> c.attempt() == 2);
    assertEquals(CallingStep.TARGET, call.target());
    assertEquals(CallingStep.COMMAND, call.command());
    assertEquals(CallingStep.ERROR, call.lastError());
    assertEquals(0, call.nextRetry(), "in flight");
    String reason = calls.executor.getInfo(id).orElseThrow().waitReason();
    assertTrue(reason.startsWith("in call " + CallingStep.COMMAND + " to "), reason);
    WaitChain chain = calls.executor.why(id).orElseThrow();
    assertEquals(1, chain.links().size());
    assertTrue(chain.rootCause().contains(CallingStep.TARGET), chain.rootCause());
    gate.countDown();
    assertEquals(ProcedureState.SUCCESS, calls.await(id).state());
  }

  @Test
  void aFailedCallWaitingForItsRetryNamesTheErrorAndTheNextRetry() throws Exception {
    calls.env.failNext("call", 1);
    calls.start();
    long before = System.currentTimeMillis();
    long id = calls.executor.submit(new CallingStep());
    BlockedOn.ExternalCall call = awaitCall(id, c -> c.nextRetry() != 0);
    assertEquals(1, call.attempt());
    assertEquals(CallingStep.ERROR, call.lastError());
    assertTrue(call.nextRetry() >= before + HOUR, call.toString());
    assertTrue(
        call.describe(0).startsWith("retrying call " + CallingStep.COMMAND), call.describe(0));
    assertEquals(
        1,
        calls.executor.blockedCounts().get("externalCall"),
        calls.executor.blockedCounts().toString());
  }
}
