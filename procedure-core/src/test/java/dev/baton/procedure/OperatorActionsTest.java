package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** An operator's force-fail, bypass and retry-now: what each changes, refuses and previews. */
@Timeout(60)
class OperatorActionsTest {
  private static final long HOUR_MS = 3_600_000L;

  private final Harness h =
      new Harness(
              ScriptedStep.registry()
                  .register("Stubborn", AbortTest.Stubborn.class, AbortTest.Stubborn::new))
          .with(b -> b.coreWorkers(2));

  @AfterEach
  void tearDown() {
    h.close();
  }

  private void awaitState(long id, ProcedureState state) {
    Harness.eventually(id + " in " + state)
        .until(() -> h.executor.getInfo(id).orElseThrow().state() == state);
  }

  private long waitingRootWithWaitingChild() throws Exception {
    h.env.spawns.put("r:B", List.of("r.0"));
    h.env.waits.put("r.0:A", HOUR_MS);
    h.start();
    long root = h.executor.submit(new ScriptedStep("r"));
    Harness.eventually("child waits").until(() -> h.env.ids.containsKey("r.0"));
    awaitState(h.env.ids.get("r.0"), ProcedureState.WAITING_TIMEOUT);
    awaitState(root, ProcedureState.WAITING);
    return root;
  }

  @Test
  void bypassFinishesAWaitingProcedureWithoutItsRemainingSteps() throws Exception {
    h.env.waits.put("p:A", HOUR_MS);
    h.start();
    long id = h.executor.submit(new ScriptedStep("p"));
    awaitState(id, ProcedureState.WAITING_TIMEOUT);

    ActionPlan plan = h.executor.act(OperatorAction.BYPASS, id, false, "stuck on a dead node");
    assertTrue(plan.allowed(), plan::refusal);
    assertEquals(
        List.of(
            new ActionPlan.StateChange(
                id, "ScriptedStep", ProcedureState.WAITING_TIMEOUT, ProcedureState.SUCCESS)),
        plan.states());
    assertEquals(ProcedureState.SUCCESS, h.await(id).state());
    assertEquals(List.of("exec p:A"), h.env.journal());
  }

  @Test
  void bypassOfAParentWithUnfinishedChildrenNeedsRecursive() throws Exception {
    long root = waitingRootWithWaitingChild();
    long child = h.env.ids.get("r.0");

    ActionPlan refused = h.executor.act(OperatorAction.BYPASS, root, false, "r");
    assertFalse(refused.allowed());
    assertTrue(
        refused.refusal().contains("unfinished children [" + child + "]"), refused.refusal());
    assertEquals(ProcedureState.WAITING, h.executor.getInfo(root).orElseThrow().state());

    ActionPlan plan = h.executor.act(OperatorAction.BYPASS, root, true, "r");
    assertTrue(plan.allowed(), plan::refusal);
    assertEquals(List.of(child), plan.childrenAffected());
    assertEquals(ProcedureState.SUCCESS, h.await(root).state());
    assertEquals(ProcedureState.SUCCESS, h.executor.getInfo(child).orElseThrow().state());
    assertEquals(List.of("exec r:A", "exec r:B", "exec r.0:A"), h.env.journal());
  }

  @Test
  void dryRunAnswersWhatWouldChangeAndChangesNothing() throws Exception {
    long root = waitingRootWithWaitingChild();
    long child = h.env.ids.get("r.0");

    ActionPlan bypass = h.executor.plan(OperatorAction.BYPASS, root, true);
    assertTrue(bypass.allowed(), bypass::refusal);
    assertEquals(
        List.of(
            new ActionPlan.StateChange(
                child, "ScriptedStep", ProcedureState.WAITING_TIMEOUT, ProcedureState.SUCCESS),
            new ActionPlan.StateChange(
                root, "ScriptedStep", ProcedureState.WAITING, ProcedureState.SUCCESS)),
        bypass.states());
    ActionPlan fail = h.executor.plan(OperatorAction.FORCE_FAIL, root, false);
    assertEquals(List.of(child), fail.childrenAffected());
    assertTrue(h.executor.plan(OperatorAction.RETRY_NOW, child, false).allowed());

    assertEquals(ProcedureState.WAITING, h.executor.getInfo(root).orElseThrow().state());
    assertEquals(ProcedureState.WAITING_TIMEOUT, h.executor.getInfo(child).orElseThrow().state());
    assertEquals(List.of("exec r:A", "exec r:B", "exec r.0:A"), h.env.journal());
    assertEquals(2, h.executor.liveCount());
  }

  @Test
  void forceFailRollsBackAProcedureThatRefusesAborts() throws Exception {
    h.env.failNext("suspend s:B", 1);
    h.start();
    long id = h.executor.submit(new AbortTest.Stubborn("s"));
    awaitState(id, ProcedureState.WAITING);
    assertFalse(h.executor.abort(id), "it refuses an abort");

    assertTrue(h.executor.act(OperatorAction.FORCE_FAIL, id, false, "region gone").allowed());
    ProcedureInfo info = h.await(id);
    assertEquals(ProcedureState.ROLLEDBACK, info.state());
    assertTrue(info.failure().contains("force-fail: region gone"), info.failure());
    assertEquals(List.of("rollback s:B", "rollback s:A"), h.env.journal("rollback"));
  }

  @Test
  void retryNowEndsATimedWait() throws Exception {
    h.env.waits.put("p:A", HOUR_MS);
    h.start();
    long id = h.executor.submit(new ScriptedStep("p"));
    awaitState(id, ProcedureState.WAITING_TIMEOUT);

    assertTrue(h.executor.act(OperatorAction.RETRY_NOW, id, false, "node is back").allowed());
    assertEquals(ProcedureState.SUCCESS, h.await(id).state());
    assertEquals(List.of("exec p:A", "exec p:B", "exec p:C"), h.env.journal());
  }

  @Test
  void eachActionIsRefusedWithItsReasonWhenIllegal() throws Exception {
    h.env.failNext("suspend s:A", 1);
    h.start();
    long done = h.executor.submit(new ScriptedStep("p"));
    assertEquals(ProcedureState.SUCCESS, h.await(done).state());
    long suspended = h.executor.submit(new AbortTest.Stubborn("s"));
    awaitState(suspended, ProcedureState.WAITING);

    for (OperatorAction a : OperatorAction.values()) {
      ActionPlan finished = h.executor.act(a, done, true, "x");
      assertTrue(finished.refusal().contains("is finished (SUCCESS)"), finished.refusal());
      ActionPlan unknown = h.executor.act(a, done + 1000, true, "x");
      assertTrue(unknown.refusal().contains("not known"), unknown.refusal());
    }
    ActionPlan retry = h.executor.act(OperatorAction.RETRY_NOW, suspended, false, "x");
    assertTrue(retry.refusal().contains("neither a timer nor a retry backoff"), retry.refusal());
    assertNull(h.executor.getInfo(suspended).orElseThrow().failure());
    assertEquals(ProcedureState.WAITING, h.executor.getInfo(suspended).orElseThrow().state());
  }
}
