package dev.baton.procedure;

import java.util.ArrayList;
import java.util.List;

/**
 * A root stack as the tests of the decision core keep it: members, rollback entries, running
 * members, failure and unwind flags. Drives {@link UnwindPlanner} one move at a time and rebuilds
 * its entries with {@link RecoveryPlanner#entries}.
 */
final class ModelStack {
  /** A step of a member: recorded as executed, or undone. */
  record Undo(long procId, int step) {}

  final long rootId;
  final List<ModelProc> members = new ArrayList<>();
  final List<ModelProc> entries = new ArrayList<>();
  int nextIndex;
  int running;
  boolean failed;
  boolean rollingBack;

  ModelStack(long rootId) {
    this.rootId = rootId;
  }

  /** Records an executed step of {@code p}, numbered by its stack index, as the newest entry. */
  int addEntry(ModelProc p) {
    return addEntry(p, nextIndex);
  }

  /** Records step {@code step} of {@code p} as the newest entry; returns its stack index. */
  int addEntry(ModelProc p, int step) {
    int index = nextIndex++;
    p.addStackIndex(index, step);
    entries.add(p);
    return index;
  }

  void rebuildEntries() {
    RecoveryPlanner.Entries<ModelProc> rebuilt =
        RecoveryPlanner.entries(rootId, members, ModelProc.FACTS);
    entries.clear();
    entries.addAll(rebuilt.entries());
    nextIndex = rebuilt.nextIndex();
  }

  ModelProc newest() {
    return entries.isEmpty() ? null : entries.get(entries.size() - 1);
  }

  /** The members the planner fails before the first undo, now FAILED. */
  List<ModelProc> failTree(ModelProc root) {
    UnwindPlanner.TreeFailure<ModelProc> plan =
        UnwindPlanner.failTree(root, members, ModelProc.FACTS);
    if (plan.rootNeedsCause()) {
      root.failed("a member of the tree failed");
    }
    for (ModelProc m : plan.markFailed()) {
      m.state = ProcedureState.FAILED;
    }
    return plan.markFailed();
  }

  /**
   * Carries out one planned move. Returns the undo it did (null for a skip or the finish); the
   * members it changed are added to {@code written}, those written as a whole tree on finish too.
   */
  UnwindPlanner.Next<ModelProc> move(List<Undo> undone, List<ModelProc> written) {
    UnwindPlanner.Next<ModelProc> next = UnwindPlanner.next(rootId, newest(), ModelProc.FACTS);
    switch (next.move()) {
      case SKIP -> entries.remove(entries.size() - 1);
      case UNDO -> {
        ModelProc p = next.member();
        if (next.markFailed()) {
          p.state = ProcedureState.FAILED;
        }
        undone.add(new Undo(p.id, p.newestStep()));
        entries.remove(entries.size() - 1);
        p.removeNewestStackIndex();
        if (next.rolledBack()) {
          p.state = ProcedureState.ROLLEDBACK;
        }
        if (next.persist()) {
          written.add(p);
        }
      }
      case FINISH -> {
        for (ModelProc m : UnwindPlanner.membersToRollBack(members, ModelProc.FACTS)) {
          m.state = ProcedureState.ROLLEDBACK;
        }
        written.addAll(members);
      }
    }
    return next;
  }

  /** Unwinds to the end in one go; returns the undos in order. */
  List<Undo> unwindAll(ModelProc root) {
    failTree(root);
    List<Undo> undone = new ArrayList<>();
    while (move(undone, new ArrayList<>()).move() != UnwindPlanner.Move.FINISH) {
      // one move at a time
    }
    return undone;
  }
}
