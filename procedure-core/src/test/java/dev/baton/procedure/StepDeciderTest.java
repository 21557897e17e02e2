package dev.baton.procedure;

import static dev.baton.procedure.ProcedureState.RUNNABLE;
import static dev.baton.procedure.ProcedureState.SUCCESS;
import static dev.baton.procedure.ProcedureState.WAITING;
import static dev.baton.procedure.ProcedureState.WAITING_TIMEOUT;
import static dev.baton.procedure.StepDecider.Action.BYPASS;
import static dev.baton.procedure.StepDecider.Action.FAIL;
import static dev.baton.procedure.StepDecider.Action.PARK;
import static dev.baton.procedure.StepDecider.Action.RUN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.baton.procedure.StepDecider.Outcome;
import dev.baton.procedure.StepDecider.StepResult;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The turn decisions of {@link StepDecider} as a table: a procedure, a signal, a time. */
@Timeout(10)
class StepDeciderTest {
  private static final long NOW = 1_000;
  private static final long SUBMITTED = 100;
  private static final long BEFORE = NOW - 1;
  private static final long AFTER = NOW + 1;

  /** One row: a procedure, its signals, and the turn expected. */
  private static final class Row {
    final String name;
    final ModelProc proc;
    boolean woken;
    boolean hookFails = true;
    StepDecider.Action action;
    String failureSource;
    boolean resume;
    int hookCalls;

    Row(String name, ModelProc proc) {
      this.name = name;
      this.proc = proc;
    }

    Row woken() {
      woken = true;
      return this;
    }

    Row hookRefuses() {
      hookFails = false;
      return this;
    }

    Row hookAsked(int times) {
      hookCalls = times;
      return this;
    }

    Row expect(StepDecider.Action expected) {
      action = expected;
      return this;
    }

    Row failsWith(String source) {
      action = FAIL;
      failureSource = source;
      return this;
    }

    Row resumes() {
      action = RUN;
      resume = true;
      return this;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private static ModelProc proc(ProcedureState state) {
    ModelProc p = ModelProc.root(7).state(state);
    p.submitted = SUBMITTED;
    return p;
  }

  private static ModelProc waitingUntil(long deadline) {
    ModelProc p = proc(WAITING_TIMEOUT);
    p.waitDeadline = deadline;
    return p;
  }

  private static ModelProc withTimeout(ModelProc p, long expiresAt) {
    p.timeout = expiresAt - SUBMITTED;
    return p;
  }

  private static ModelProc aborted(ModelProc p) {
    p.abortRequested = true;
    return p;
  }

  private static ModelProc forced(ModelProc p) {
    p.forced = ProcedureFailure.aborted("force-fail", "operator");
    return p;
  }

  static Stream<Arguments> turns() {
    List<Row> rows = new ArrayList<>();
    rows.add(new Row("runnable runs", proc(RUNNABLE)).expect(RUN));
    rows.add(new Row("recorded failure fails", proc(RUNNABLE).failed("x")).expect(FAIL));
    rows.add(new Row("abort fails", aborted(proc(RUNNABLE))).failsWith("abort"));
    rows.add(
        new Row("force-fail wins over abort", forced(aborted(proc(RUNNABLE))))
            .failsWith("force-fail"));
    rows.add(
        new Row("procedure timeout expired, hook agrees", withTimeout(proc(RUNNABLE), NOW))
            .failsWith("timeout")
            .hookAsked(1));
    rows.add(
        new Row("procedure timeout expired, hook refuses", withTimeout(proc(RUNNABLE), NOW))
            .hookRefuses()
            .expect(RUN)
            .hookAsked(1));
    rows.add(
        new Row("procedure timeout not yet due", withTimeout(proc(RUNNABLE), AFTER)).expect(RUN));
    rows.add(
        new Row("abort and timeout race: abort wins", aborted(withTimeout(proc(RUNNABLE), BEFORE)))
            .failsWith("abort"));
    rows.add(new Row("wait not expired parks", waitingUntil(AFTER)).expect(PARK));
    rows.add(new Row("woken wait resumes", waitingUntil(AFTER)).woken().resumes());
    rows.add(
        new Row("expired wait, hook fails it", waitingUntil(NOW))
            .failsWith("timeout")
            .hookAsked(1));
    rows.add(
        new Row("expired wait, hook refuses", waitingUntil(NOW))
            .hookRefuses()
            .resumes()
            .hookAsked(1));
    rows.add(
        new Row("expired and woken race: the wake wins", waitingUntil(BEFORE)).woken().resumes());
    rows.add(new Row("abort during a wait", aborted(waitingUntil(AFTER))).failsWith("abort"));
    rows.add(
        new Row("procedure timeout and wait expiry", withTimeout(waitingUntil(BEFORE), BEFORE))
            .hookRefuses()
            .resumes()
            .hookAsked(2));
    rows.add(new Row("waiting for children parks", children(1)).woken().expect(PARK));
    rows.add(new Row("children done, woken: runs", children(0)).woken().resumes());
    rows.add(new Row("children done, not woken: parks", children(0)).expect(PARK));
    rows.add(new Row("abort while waiting for children", aborted(children(2))).failsWith("abort"));
    Row finished = new Row("finished procedure parks, abort recorded", aborted(proc(SUCCESS)));
    finished.failureSource = "abort";
    rows.add(finished.expect(PARK));
    return rows.stream().map(r -> Arguments.of(r.name, r));
  }

  private static ModelProc children(int pending) {
    ModelProc p = proc(WAITING);
    p.pendingChildren = pending;
    return p;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("turns")
  void turnFollowsTheTable(String name, Row row) {
    int[] hookCalls = {0};
    StepDecider.Turn turn =
        StepDecider.decide(
            row.proc,
            ModelProc.FACTS,
            row.woken,
            NOW,
            p -> {
              hookCalls[0]++;
              return row.hookFails;
            });
    assertEquals(row.action, turn.action(), name);
    assertEquals(row.failureSource, turn.failure() == null ? null : turn.failure().source(), name);
    assertEquals(row.resume, turn.resume(), name);
    assertEquals(row.resume && row.proc.state == WAITING_TIMEOUT, turn.endWait(), name);
    assertEquals(row.resume && row.woken && turn.endWait(), turn.cancelWaitTimer(), name);
    assertEquals(row.hookCalls, hookCalls[0], name);
  }

  @Test
  void bypassWaitsForPendingChildrenAndYieldsToAFailure() {
    ModelProc p = proc(WAITING);
    assertNull(StepDecider.bypass(p, ModelProc.FACTS), "no bypass asked");
    p.bypass = true;
    p.pendingChildren = 1;
    assertEquals(PARK, StepDecider.bypass(p, ModelProc.FACTS).action());
    p.pendingChildren = 0;
    assertEquals(BYPASS, StepDecider.bypass(p, ModelProc.FACTS).action());
    p.failed("x");
    assertNull(StepDecider.bypass(p, ModelProc.FACTS), "a failed procedure rolls back instead");
  }

  @Test
  void outcomeOfAStepFollowsTheTable() {
    Object[][] table = {
      {StepResult.AGAIN, true, false, -1L, Outcome.FAIL},
      {StepResult.CHILDREN, true, true, -1L, Outcome.RETRY},
      {StepResult.DONE, true, false, 5L, Outcome.FAIL},
      {StepResult.YIELDED, false, false, -1L, Outcome.YIELD},
      {StepResult.SUSPENDED, false, false, -1L, Outcome.SUSPEND},
      {StepResult.AGAIN, false, false, 0L, Outcome.WAIT},
      {StepResult.AGAIN, false, false, -1L, Outcome.CONTINUE},
      {StepResult.CHILDREN, false, false, -1L, Outcome.SPAWN},
      {StepResult.DONE, false, false, -1L, Outcome.SUCCEED},
      {StepResult.DONE, false, true, 10L, Outcome.SUCCEED},
    };
    for (Object[] row : table) {
      assertEquals(
          row[4],
          StepDecider.afterStep(
              (StepResult) row[0], (boolean) row[1], (boolean) row[2], (long) row[3]),
          () -> java.util.Arrays.toString(row));
    }
  }
}
