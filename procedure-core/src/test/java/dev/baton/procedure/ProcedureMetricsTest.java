package dev.baton.procedure;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.store.InMemoryProcedureStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What an executor reports to its {@link ProcedureMetrics}: procedures that became live and that
 * finished (every outcome), steps, lock waits and store writes; and its {@link ExecutorCensus} of
 * live procedures by state and wait.
 */
@Timeout(60)
class ProcedureMetricsTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String TYPE = "LockStep";

  /** Counts every event by name (and type, outcome). */
  static final class Recorder implements ProcedureMetrics {
    final Map<String, AtomicInteger> events = new ConcurrentHashMap<>();
    final AtomicLong lockWaitNanos = new AtomicLong();
    final AtomicLong stepNanos = new AtomicLong();

    int count(String event) {
      AtomicInteger n = events.get(event);
      return n == null ? 0 : n.get();
    }

    private void add(String... parts) {
      events.computeIfAbsent(String.join(" ", parts), k -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public void submitted(String type) {
      add("submitted", type);
    }

    @Override
    public void finished(String type, ProcedureState outcome, long millis) {
      assertTrue(millis >= 0, "duration " + millis);
      add("finished", type, outcome.name());
    }

    @Override
    public void stepExecuted(String type, long nanos) {
      timed(stepNanos, nanos, "step", type);
    }

    @Override
    public void lockWaitStarted(String type) {
      add("lockWait", type);
    }

    @Override
    public void lockWaitEnded(String type, long nanos) {
      timed(lockWaitNanos, nanos, "lockGot", type);
    }

    private void timed(AtomicLong total, long nanos, String... parts) {
      total.addAndGet(nanos);
      add(parts);
    }

    @Override
    public void storeWritten(long nanos) {
      add("stored");
    }
  }

  private final LockEnv env = new LockEnv();
  private final Recorder metrics = new Recorder();
  private ProcedureExecutor<LockEnv> executor;

  @AfterEach
  void stop() {
    if (executor != null) {
      executor.stop();
    }
  }

  private void start() throws Exception {
    executor =
        ProcedureExecutor.builder(env, new InMemoryProcedureStore(), LockStep.registry())
            .lockManager(env.locks)
            .coreWorkers(4)
            .metrics(metrics)
            .build();
    executor.start();
  }

  @Test
  void everyOutcomeIsReportedWithItsSubmissionStepsAndWrites() throws Exception {
    start();
    long ok =
        executor.submit(
            new LockStep("parent")
                .steps(2)
                .childrenAt(0, List.of(new LockStep("c1"), new LockStep("c2"))));
    long bad = executor.submit(new LockStep("bad").steps(3).failAt(1));
    await().atMost(WAIT).until(() -> metrics.count("finished " + TYPE + " SUCCESS") == 3);
    await().atMost(WAIT).until(() -> metrics.count("finished " + TYPE + " ROLLEDBACK") == 1);
    assertEquals(ProcedureState.SUCCESS, executor.getInfo(ok).orElseThrow().state());
    assertEquals(ProcedureState.ROLLEDBACK, executor.getInfo(bad).orElseThrow().state());
    assertEquals(4, metrics.count("submitted " + TYPE), metrics.events.toString());
    // every step and every rollback step the procedures ran
    long ran =
        env.journal().stream()
            .filter(e -> e.startsWith("exec ") || e.startsWith("rollback "))
            .count();
    assertTrue(ran >= 6, env.journal().toString());
    assertEquals(ran, metrics.count("step " + TYPE), metrics.events.toString());
    assertTrue(metrics.stepNanos.get() > 0);
    assertTrue(metrics.count("stored") > 0, metrics.events.toString());
  }

  @Test
  void aLockWaitIsCountedOnceAndTimedUntilTheLockIsGranted() throws Exception {
    start();
    executor.submit(new LockStep("holder").exclusive("region:db/r1").gate("g"));
    await().atMost(WAIT).until(() -> env.indexOf("exec holder:0") >= 0);
    long waiter = executor.submit(new LockStep("waiter").exclusive("region:db/r1"));
    await().atMost(WAIT).until(() -> metrics.count("lockWait " + TYPE) == 1);

    ExecutorCensus census = executor.census();
    assertEquals(1, census.blocked().get(WaitCategory.LOCK), census.toString());
    assertEquals(2, census.byState().get(ProcedureState.RUNNABLE), census.toString());
    assertEquals(0, census.byState().get(ProcedureState.WAITING), census.toString());
    long oldest = census.oldestSubmittedMillis().get(TYPE);
    assertTrue(oldest > 0 && oldest <= census.takenAtMillis(), census.toString());

    env.open("g");
    assertEquals(ProcedureState.SUCCESS, executor.await(waiter, WAIT).state());
    assertEquals(1, metrics.count("lockWait " + TYPE), metrics.events.toString());
    assertEquals(1, metrics.count("lockGot " + TYPE), metrics.events.toString());
    assertTrue(metrics.lockWaitNanos.get() > 0);
    ExecutorCensus after = executor.census();
    assertEquals(0, after.blocked().get(WaitCategory.LOCK), after.toString());
    assertTrue(after.oldestSubmittedMillis().isEmpty(), after.toString());
  }

  @Test
  void theCensusTellsWaitingForChildrenFromWaitingForATimer() throws Exception {
    start();
    executor.submit(new LockStep("parent").childrenAt(0, List.of(new LockStep("kid").gate("kid"))));
    executor.submit(
        new LockStep("sleeper").steps(2).waitAfterFirst(Duration.ofHours(1).toMillis()));
    await()
        .atMost(WAIT)
        .until(
            () -> {
              ExecutorCensus c = executor.census();
              return c.blocked().get(WaitCategory.CHILDREN) == 1
                  && c.blocked().get(WaitCategory.TIMER) == 1;
            });
    ExecutorCensus census = executor.census();
    assertEquals(1, census.byState().get(ProcedureState.WAITING), census.toString());
    assertEquals(1, census.byState().get(ProcedureState.WAITING_TIMEOUT), census.toString());
    env.open("kid");
  }
}
