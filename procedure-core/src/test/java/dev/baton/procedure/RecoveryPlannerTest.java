package dev.baton.procedure;

import static dev.baton.procedure.ProcedureState.FAILED;
import static dev.baton.procedure.ProcedureState.INITIALIZING;
import static dev.baton.procedure.ProcedureState.ROLLEDBACK;
import static dev.baton.procedure.ProcedureState.RUNNABLE;
import static dev.baton.procedure.ProcedureState.SUCCESS;
import static dev.baton.procedure.ProcedureState.WAITING;
import static dev.baton.procedure.ProcedureState.WAITING_TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ModelStack.Undo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link RecoveryPlanner}: what a restart rebuilds from stored records, without threads. */
@Timeout(10)
class RecoveryPlannerTest {
  private static final long WAIT_DEADLINE = 500;
  private static final long SUBMITTED = 10;
  private static final long TIMEOUT = 90;

  /**
   * A tree's history as the executor writes it: root 1 runs a step, spawns 2 and 3; 2 runs a step
   * and succeeds after a second; 3 runs a step, waits, runs again and fails. Each write is a batch
   * of records; a restart may come after any of them.
   */
  private final TreeMap<Long, ModelProc> store = new TreeMap<>();

  private final List<Map<Long, ModelProc>> afterEachWrite = new ArrayList<>();
  private final List<Undo> recorded = new ArrayList<>();
  private final ModelStack stack = new ModelStack(1);
  private final ModelProc root = ModelProc.root(1);
  private final ModelProc c2 = ModelProc.child(2, root);
  private final ModelProc c3 = ModelProc.child(3, root);

  private void write(ModelProc... batch) {
    for (ModelProc p : batch) {
      store.put(p.id, p.copy());
    }
    afterEachWrite.add(new TreeMap<>(store));
  }

  private void step(ModelProc p, Consumer<ModelProc> outcome) {
    recorded.add(new Undo(p.id, stack.addEntry(p)));
    outcome.accept(p);
  }

  private void history() {
    stack.members.add(root);
    write(root);
    step(root, p -> p.state = RUNNABLE);
    write(root);
    step(
        root,
        p -> {
          p.state = WAITING;
          p.pendingChildren = 2;
        });
    stack.members.add(c2);
    stack.members.add(c3);
    write(root, c2, c3);
    step(c2, p -> {});
    write(c2);
    step(
        c3,
        p -> {
          p.state = WAITING_TIMEOUT;
          p.waitDeadline = WAIT_DEADLINE;
        });
    write(c3);
    step(c2, p -> p.state = SUCCESS);
    write(c2);
    step(c3, p -> p.state = RUNNABLE);
    write(c3);
    step(c3, p -> p.state = FAILED);
    c3.failed("boom");
    write(c3);
  }

  @Test
  void restartAtEveryRecordUnwindsExactlyTheRecordedStepsNewestFirst() {
    history();
    int entriesSoFar = 0;
    for (int k = 0; k < afterEachWrite.size(); k++) {
      Map<Long, ModelProc> stored = afterEachWrite.get(k);
      ModelRecovery recovery = new ModelRecovery(stored.values());
      assertEquals(List.of(1L), recovery.plan.roots().stream().map(p -> p.id).toList());
      ModelStack rebuilt = recovery.stacks.get(1L);
      List<Undo> recordedSoFar = recordedIn(stored);
      entriesSoFar = recordedSoFar.size();
      assertEquals(entriesSoFar, rebuilt.entries.size(), "entries after write " + k);

      ModelProc liveRoot = recovery.live.get(1L);
      boolean storedFailed = stored.values().stream().anyMatch(p -> p.state == FAILED);
      assertEquals(storedFailed, rebuilt.failed, "a stored FAILED member fails the stack");
      if (storedFailed) {
        assertEquals(1L, recovery.queuedIds().get(0), "a failed tree's root is queued first");
      } else {
        liveRoot.failed("aborted after restart " + k);
      }
      List<Undo> undone = rebuilt.unwindAll(liveRoot);

      List<Undo> expected = new ArrayList<>();
      for (Undo u : recordedSoFar) {
        if (recovery.live.get(u.procId()).state != SUCCESS) {
          expected.add(0, u);
        }
      }
      assertEquals(expected, undone, "restart after write " + k);
      for (ModelProc m : recovery.live.values()) {
        assertTrue(m.state == SUCCESS || m.state == ROLLEDBACK, "after write " + k + ": " + m);
      }
    }
    assertEquals(recorded.size(), entriesSoFar, "the last write holds every step");
  }

  /** The steps whose stack index the stored records hold, in the order they ran. */
  private List<Undo> recordedIn(Map<Long, ModelProc> stored) {
    List<Undo> out = new ArrayList<>();
    for (Undo u : recorded) {
      ModelProc p = stored.get(u.procId());
      for (int index : p == null ? new int[0] : p.stackIndexes) {
        if (index == u.step()) {
          out.add(u);
        }
      }
    }
    return out;
  }

  @Test
  void wiringResumesParentsWhoseChildrenAllFinishedAndArmsTimers() {
    ModelProc r = ModelProc.root(1).state(WAITING).stateMachine(2);
    r.userStep = 1;
    r.pendingChildren = 2;
    r.timeout = TIMEOUT;
    r.submitted = SUBMITTED;
    ModelProc done = ModelProc.child(2, r).state(SUCCESS);
    ModelProc alsoDone = ModelProc.child(3, r).state(SUCCESS);
    ModelProc other = ModelProc.root(4).state(WAITING_TIMEOUT);
    other.waitDeadline = WAIT_DEADLINE;
    ModelProc fresh = ModelProc.root(5).state(INITIALIZING).stateMachine(1);
    ModelProc plain = ModelProc.root(6).state(RUNNABLE);
    ModelProc counted = ModelProc.root(7).state(RUNNABLE).stateMachine(2);
    counted.dueCounted = true;
    ModelProc pastLastState = ModelProc.root(8).state(RUNNABLE).stateMachine(1);
    pastLastState.userStep = 1;

    ModelRecovery recovery =
        new ModelRecovery(List.of(r, done, alsoDone, other, fresh, plain, counted, pastLastState));

    assertEquals(List.of(1L, 5L, 6L, 7L, 8L), recovery.queuedIds());
    assertEquals(RUNNABLE, recovery.live.get(1L).state);
    assertEquals(0, recovery.live.get(1L).pendingChildren);
    assertEquals(RUNNABLE, recovery.live.get(5L).state);
    List<String> timers =
        recovery.plan.timers().stream()
            .map(t -> t.proc().id + ":" + t.kind() + "@" + t.deadline())
            .toList();
    assertEquals(
        List.of("1:PROCEDURE_DEADLINE@" + (SUBMITTED + TIMEOUT), "4:WAIT_EXPIRED@" + WAIT_DEADLINE),
        timers);
    assertEquals(
        List.of(1L, 5L),
        ids(recovery.plan.dueSteps()),
        "runnable state machines with a due state not counted yet");
  }

  private static List<Long> ids(List<ModelProc> procs) {
    return procs.stream().map(p -> p.id).toList();
  }

  @Test
  void aParentResumedInAFailedTreeDoesNotCountItsDueStepAsRun() {
    ModelProc r = ModelProc.root(1).state(WAITING).stateMachine(2);
    r.userStep = 1;
    r.pendingChildren = 1;
    ModelProc failed = ModelProc.child(2, r).state(ROLLEDBACK);
    ModelProc sibling = ModelProc.child(3, r).state(FAILED).failed("boom");
    ModelRecovery recovery = new ModelRecovery(List.of(r, failed, sibling));
    assertTrue(recovery.stacks.get(1L).failed);
    assertEquals(List.of(1L), recovery.queuedIds().subList(0, 1));
    assertFalse(
        recovery.plan.dueSteps().stream().anyMatch(p -> p.id == 1L),
        "its children were being rolled back: its due step never ran");
  }

  /**
   * Root 1 spawned 2 (a state machine of three states, state 0 run, state 1 due) and 3 (plain, one
   * step run); then the executor crashed. Each row: what happens next, the due steps the restart
   * (if any) plans, and the rollback entries of the stack afterwards. Restart 1 counts 2's due
   * state 1 and writes it, so restart 2, after 3 recorded a step, finds it in its place below that
   * step instead of counting it again on top.
   */
  @Test
  void aDueStateCountedAtARestartKeepsItsPlaceThroughASecondRestart() {
    ModelProc r = ModelProc.root(1);
    ModelProc sm = ModelProc.child(2, r).stateMachine(3);
    ModelProc plain = ModelProc.child(3, r);
    stack.members.addAll(List.of(r, sm, plain));
    stack.addEntry(r, 0);
    r.state = WAITING;
    r.pendingChildren = 2;
    stack.addEntry(sm, 0);
    sm.userStep = 1;
    stack.addEntry(plain, 0);
    plain.userStep = 1;
    write(r, sm, plain);

    record Row(String what, boolean restart, List<Long> dueSteps, List<Long> entries) {}
    List<Row> table =
        List.of(
            new Row("restart 1", true, List.of(2L), List.of(1L, 2L, 3L, 2L)),
            new Row("3 records step 1", false, List.of(), List.of(1L, 2L, 3L, 2L, 3L)),
            new Row("restart 2", true, List.of(), List.of(1L, 2L, 3L, 2L, 3L)));
    ModelRecovery recovery = null;
    for (Row row : table) {
      if (row.restart()) {
        recovery = new ModelRecovery(store.values());
        assertEquals(row.dueSteps(), ids(recovery.plan.dueSteps()), row.what());
        write(recovery.countDueSteps().toArray(new ModelProc[0]));
      } else {
        ModelProc p = recovery.live.get(3L);
        recovery.stacks.get(1L).addEntry(p, p.userStep++);
        write(p);
      }
      assertEquals(row.entries(), ids(recovery.stacks.get(1L).entries), row.what());
    }

    ModelProc liveRoot = recovery.live.get(1L);
    liveRoot.failed("aborted after the second restart");
    assertEquals(
        List.of(new Undo(3, 1), new Undo(2, 1), new Undo(3, 0), new Undo(2, 0), new Undo(1, 0)),
        recovery.stacks.get(1L).unwindAll(liveRoot),
        "3's step recorded after restart 1 is undone before 2's state counted at restart 1");
  }

  @Test
  void sortingKeepsFinishedTreesApartAndReportsOrphansAndBrokenTrees() {
    ModelProc finished = ModelProc.root(1).state(SUCCESS);
    ModelProc keptMember = ModelProc.child(2, finished).state(SUCCESS);
    ModelProc liveRoot = ModelProc.root(3).state(WAITING);
    ModelProc liveChild = ModelProc.child(4, liveRoot).state(RUNNABLE);
    ModelProc orphan = new ModelProc(6, 5, 5);
    ModelProc lost = new ModelProc(8, 7, 7);
    List<ModelProc> inOrder = List.of(finished, keptMember, liveRoot, liveChild, orphan, lost);
    Map<Long, ModelProc> byId = new HashMap<>();
    inOrder.forEach(p -> byId.put(p.id, p));

    RecoveryPlanner.Sorting<ModelProc> s =
        RecoveryPlanner.sort(
            inOrder,
            byId::get,
            Map.of(5L, "unknown type", 9L, "bad bytes"),
            Map.of(5L, 5L, 9L, 3L),
            ModelProc.FACTS);

    assertEquals(List.of(liveRoot, liveChild), s.live());
    assertEquals(List.of(finished), s.finishedRoots());
    assertEquals(Map.of(1L, List.of(keptMember)), s.retainedMembers());
    assertEquals(
        Map.of(orphan, "its root 5 is corrupt", lost, "its root 7 is missing"), s.orphans());
    assertEquals(Map.of(3L, "member 9 is corrupt"), s.brokenTrees());
  }
}
