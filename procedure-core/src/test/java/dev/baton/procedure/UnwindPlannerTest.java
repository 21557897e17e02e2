package dev.baton.procedure;

import static dev.baton.procedure.ProcedureState.FAILED;
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
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link UnwindPlanner} on nested trees, without threads. */
@Timeout(10)
class UnwindPlannerTest {

  /** A tree: root 1, children 2 and 3, grandchild 4 under 2; steps recorded in {@code order}. */
  private static ModelStack tree(List<ModelProc> order) {
    ModelStack stack = new ModelStack(1);
    for (ModelProc p : order) {
      if (!stack.members.contains(p)) {
        stack.members.add(p);
      }
      stack.addEntry(p);
    }
    return stack;
  }

  @Test
  void nestedTreeUnwindsNewestFirstAcrossMembersAndKeepsSucceededChildren() {
    ModelProc root = ModelProc.root(1).state(WAITING);
    ModelProc c1 = ModelProc.child(2, root).state(RUNNABLE);
    ModelProc c2 = ModelProc.child(3, root).state(FAILED).failed("boom");
    ModelProc grandchild = ModelProc.child(4, c1).state(SUCCESS);
    ModelStack stack = tree(List.of(root, c1, c2, c1, grandchild, c1, c2));

    List<Undo> undone = stack.unwindAll(root);

    assertEquals(
        List.of(
            new Undo(3, 6),
            new Undo(2, 5),
            new Undo(2, 3),
            new Undo(3, 2),
            new Undo(2, 1),
            new Undo(1, 0)),
        undone,
        "every executed step of an unfinished member once, newest first; the grandchild's none");
    assertEquals(List.of(ROLLEDBACK, ROLLEDBACK, ROLLEDBACK), states(root, c1, c2));
    assertEquals(SUCCESS, grandchild.state);
  }

  @Test
  void failingTheTreeMarksEveryUnfinishedMemberAndGivesTheRootTheTreesCause() {
    ModelProc root = ModelProc.root(1).state(WAITING);
    ModelProc running = ModelProc.child(2, root).state(RUNNABLE);
    ModelProc waiting = ModelProc.child(3, root).state(WAITING_TIMEOUT);
    ModelProc failed = ModelProc.child(4, root).state(FAILED).failed("boom");
    ModelProc succeeded = ModelProc.child(5, root).state(SUCCESS);
    List<ModelProc> members = List.of(root, running, waiting, failed, succeeded);

    UnwindPlanner.TreeFailure<ModelProc> plan =
        UnwindPlanner.failTree(root, members, ModelProc.FACTS);

    assertTrue(plan.rootNeedsCause());
    assertEquals(List.of(root, running, waiting), plan.markFailed());
    root.state = FAILED;
    root.failed("its own");
    UnwindPlanner.TreeFailure<ModelProc> again =
        UnwindPlanner.failTree(root, List.of(root, failed), ModelProc.FACTS);
    assertFalse(again.rootNeedsCause(), "a root that failed itself keeps its cause");
    assertEquals(List.of(), again.markFailed(), "a restart finds the tree already failed");
  }

  @Test
  void onlyTheRootsLastUndoWaitsForTheFinishedTreesWrite() {
    ModelProc root = ModelProc.root(1).state(FAILED).failed("boom");
    ModelProc child = ModelProc.child(2, root).state(FAILED);
    ModelStack stack = tree(List.of(root, child, root));
    List<Undo> undone = new ArrayList<>();
    List<UnwindPlanner.Next<ModelProc>> moves = new ArrayList<>();
    List<ModelProc> written = new ArrayList<>();
    UnwindPlanner.Next<ModelProc> next;
    do {
      next = stack.move(undone, written);
      moves.add(next);
    } while (next.move() != UnwindPlanner.Move.FINISH);

    // {member, rolledBack, persist} of each undo, newest entry first
    Object[][] expected = {{root, false, true}, {child, true, true}, {root, true, false}};
    assertEquals(expected.length + 1, moves.size());
    for (int i = 0; i < expected.length; i++) {
      UnwindPlanner.Next<ModelProc> m = moves.get(i);
      assertEquals(UnwindPlanner.Move.UNDO, m.move());
      assertEquals(expected[i][0], m.member(), "undo " + i);
      assertEquals(expected[i][1], m.rolledBack(), "undo " + i + " ends the member");
      assertEquals(expected[i][2], m.persist(), "undo " + i + " written on its own");
    }
  }

  @Test
  void aTreeWithNothingExecutedFinishesAtOnce() {
    ModelProc root = ModelProc.root(1).state(RUNNABLE).failed("aborted before its first step");
    ModelStack stack = tree(List.of());
    stack.members.add(root);
    assertEquals(List.of(), stack.unwindAll(root));
    assertEquals(ROLLEDBACK, root.state);
  }

  private static List<ProcedureState> states(ModelProc... procs) {
    List<ProcedureState> out = new ArrayList<>();
    for (ModelProc p : procs) {
      out.add(p.state);
    }
    return out;
  }
}
