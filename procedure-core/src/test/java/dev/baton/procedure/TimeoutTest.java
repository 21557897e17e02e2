package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * WAITING_TIMEOUT waits and procedure-level timeouts: expiry, setTimeoutFailure, wake, and
 * deadlines that survive a restart.
 */
@Timeout(60)
class TimeoutTest {
  private static final long HOUR = Duration.ofHours(1).toMillis();

  /** A scripted step with a procedure-level timeout set before submission. */
  public static final class Timed extends ScriptedStep {
    public Timed() {}

    Timed(String name, long timeoutMillis) {
      super(name);
      setTimeout(timeoutMillis);
    }
  }

  /** A scripted step that sets its procedure-level timeout from inside its first step. */
  public static final class TimedLater extends ScriptedStep {
    public TimedLater() {}

    TimedLater(String name) {
      super(name);
    }

    @Override
    protected Flow executeFromState(TestEnv env, S state)
        throws ProcedureSuspendedException, ProcedureYieldException, InterruptedException {
      if (state == S.A) {
        setTimeout(100);
      }
      return super.executeFromState(env, state);
    }
  }

  private final Harness h =
      new Harness(
          ScriptedStep.registry()
              .register("Timed", Timed.class, Timed::new)
              .register("TimedLater", TimedLater.class, TimedLater::new));

  @AfterEach
  void tearDown() {
    h.close();
  }

  private void awaitState(long id, ProcedureState state) {
    Harness.eventually(id + " in " + state)
        .until(() -> h.executor.getInfo(id).orElseThrow().state() == state);
  }

  @Test
  void expiredWaitFailsTheProcedureByDefaultAndRollsItBack() throws Exception {
    h.env.waits.put("p:A", 50L);
    h.start();
    long id = h.executor.submit(new ScriptedStep("p"));
    ProcedureInfo info = h.await(id);
    assertEquals(ProcedureState.ROLLEDBACK, info.state());
    assertTrue(info.failure().startsWith("aborted by timeout"), info.failure());
    assertEquals(List.of("exec p:A", "rollback p:A"), h.env.journal());
  }

  @Test
  void expiredWaitContinuesWhenSetTimeoutFailureSaysNo() throws Exception {
    List<Long> at = new CopyOnWriteArrayList<>();
    h.env.onRecord.put("exec p:A", () -> at.add(System.nanoTime()));
    h.env.onRecord.put("exec p:B", () -> at.add(System.nanoTime()));
    h.env.waits.put("p:A", 100L);
    h.env.timeoutIsNotFailure.put("p", true);
    h.start();
    long id = h.executor.submit(new ScriptedStep("p"));
    ProcedureInfo info = h.await(id);
    assertEquals(ProcedureState.SUCCESS, info.state());
    assertEquals(List.of("exec p:A", "exec p:B", "exec p:C"), h.env.journal());
    long waitedMillis = (at.get(1) - at.get(0)) / 1_000_000;
    assertTrue(waitedMillis >= 98, "B ran after " + waitedMillis + " ms, before the wait ended");
  }

  @Test
  void wakeEndsAWaitEarly() throws Exception {
    h.env.waits.put("p:A", HOUR);
    h.start();
    long id = h.executor.submit(new ScriptedStep("p"));
    awaitState(id, ProcedureState.WAITING_TIMEOUT);
    assertEquals(List.of("exec p:A"), h.env.journal());
    assertTrue(h.executor.wake(id));
    assertEquals(ProcedureState.SUCCESS, h.await(id).state());
    assertEquals(List.of("exec p:A", "exec p:B", "exec p:C"), h.env.journal());
  }

  @Test
  void deadlinesThatEndEarlyLeaveTheTimeoutQueueAtOnce() throws Exception {
    h.env.waits.put("p:A", HOUR);
    h.start();
    int chores = h.executor.pendingDeadlines(); // the cleaner's round
    long id = h.executor.submit(new Timed("p", HOUR));
    awaitState(id, ProcedureState.WAITING_TIMEOUT);
    assertEquals(chores + 2, h.executor.pendingDeadlines(), "procedure deadline and wait");

    assertTrue(h.executor.wake(id));
    assertEquals(ProcedureState.SUCCESS, h.await(id).state());
    // neither the ended wait nor the finished procedure's deadline holds it for the next hour
    Harness.eventually("deadlines dropped")
        .untilAsserted(() -> assertEquals(chores, h.executor.pendingDeadlines()));
  }

  @Test
  void procedureTimeoutFailsAndRollsBackASuspendedProcedure() throws Exception {
    h.env.failNext("suspend p:B", 1);
    h.start();
    long id = h.executor.submit(new Timed("p", 150));
    ProcedureInfo info = h.await(id);
    assertEquals(ProcedureState.ROLLEDBACK, info.state());
    assertTrue(info.failure().startsWith("aborted by timeout"), info.failure());
    assertEquals(List.of("exec p:A", "exec p:B", "rollback p:B", "rollback p:A"), h.env.journal());
  }

  @Test
  void procedureTimeoutOfAWaitingParentRollsBackItsSuspendedChildToo() throws Exception {
    h.env.spawns.put("r:B", List.of("r.0"));
    h.env.failNext("suspend r.0:A", 1);
    h.start();
    long id = h.executor.submit(new Timed("r", 150));
    ProcedureInfo info = h.await(id);
    assertEquals(ProcedureState.ROLLEDBACK, info.state());
    assertTrue(info.failure().contains("timeout"), info.failure());
    assertEquals(
        List.of("rollback r.0:A", "rollback r:B", "rollback r:A"), h.env.journal("rollback"));
  }

  @Test
  void procedureTimeoutSetInsideAStepStillFires() throws Exception {
    h.env.failNext("suspend p:B", 1);
    h.start();
    long id = h.executor.submit(new TimedLater("p"));
    ProcedureInfo info = h.await(id);
    assertEquals(ProcedureState.ROLLEDBACK, info.state());
    assertTrue(info.failure().startsWith("aborted by timeout"), info.failure());
  }

  @Test
  void procedureDeadlineIsMeasuredFromSubmissionAcrossARestart() throws Exception {
    h.env.failNext("suspend p:B", 1);
    h.start();
    long submittedAfter = h.now();
    long id = h.executor.submit(new Timed("p", HOUR));
    awaitState(id, ProcedureState.WAITING);
    h.executor.stop();

    Procedure<?> stored = h.stored(id);
    assertEquals(HOUR, stored.getTimeout());
    assertTrue(stored.getSubmittedTime() >= submittedAfter, "submission time kept");

    h.advanceClock(Duration.ofMinutes(61)); // past the deadline, though only just restarted
    h.start();
    ProcedureInfo info = h.await(id);
    assertEquals(ProcedureState.ROLLEDBACK, info.state());
    assertTrue(info.failure().startsWith("aborted by timeout"), info.failure());
    assertEquals(List.of("rollback p:B", "rollback p:A"), h.env.journal("rollback"));
  }

  @Test
  void waitDeadlineIsKeptAcrossARestart() throws Exception {
    h.env.waits.put("p:A", HOUR);
    h.start();
    long before = h.now();
    long id = h.executor.submit(new ScriptedStep("p"));
    awaitState(id, ProcedureState.WAITING_TIMEOUT);
    long after = h.now();
    h.executor.stop();

    long deadline = h.stored(id).stored().getWaitDeadline();
    assertTrue(
        deadline >= before + HOUR && deadline <= after + HOUR,
        "stored deadline " + deadline + " not one hour after the step");

    h.advanceClock(Duration.ofMinutes(30));
    h.start();
    assertEquals(ProcedureState.WAITING_TIMEOUT, h.executor.getInfo(id).orElseThrow().state());
    h.advanceClock(Duration.ofMinutes(31)); // now past the stored deadline
    ProcedureInfo info = h.await(id);
    assertEquals(ProcedureState.ROLLEDBACK, info.state());
    assertTrue(info.failure().startsWith("aborted by timeout"), info.failure());
    assertEquals(List.of("exec p:A", "rollback p:A"), h.env.journal());
  }
}
