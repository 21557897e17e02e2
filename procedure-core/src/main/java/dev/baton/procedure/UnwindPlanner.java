package dev.baton.procedure;

import java.util.ArrayList;
import java.util.List;

/**
 * Decides how a failed root stack unwinds (seed 000 §3.2.3): the entries are undone from the newest
 * down, each executed step of a member that has not succeeded once; a succeeded child's entries are
 * dropped, its parent's undo of the spawning step compensates. Pure: it reads members through
 * {@link ProcedureFacts} and says what to do; {@link RollbackRunner} runs the undo, takes locks and
 * writes.
 */
final class UnwindPlanner {
  private UnwindPlanner() {}

  /** What happens to the newest entry of the stack. */
  enum Move {
    /** The entry's member succeeded: drop the entry without undoing anything. */
    SKIP,
    /** Undo the member's newest executed step, then drop the entry. */
    UNDO,
    /** The stack is empty: every unfinished member becomes ROLLEDBACK and the tree completes. */
    FINISH
  }

  /**
   * The next move of an unwind.
   *
   * @param move what to do with the newest entry
   * @param member the entry's member (null for {@link Move#FINISH})
   * @param markFailed the member is not FAILED yet and moves to FAILED before its undo
   * @param rolledBack the undo removes the member's last executed step: it ends ROLLEDBACK
   * @param persist the member is written after its undo; false only for the root's last undo, whose
   *     terminal record goes with the finished tree, so a root is never stored finished while a
   *     member's stored record is live
   */
  record Next<P>(Move move, P member, boolean markFailed, boolean rolledBack, boolean persist) {}

  /**
   * What is written before the first undo.
   *
   * @param rootNeedsCause the root has no failure of its own: it takes the tree's first failure
   * @param markFailed members (the root first) written as FAILED in one batch: every member neither
   *     finished nor FAILED, so a restart during the unwind never counts a due step as run
   */
  record TreeFailure<P>(boolean rootNeedsCause, List<P> markFailed) {}

  /** The batch that fails the tree before its unwind starts. */
  static <P> TreeFailure<P> failTree(P root, List<P> members, ProcedureFacts<P> facts) {
    List<P> batch = new ArrayList<>();
    boolean rootNeedsCause = false;
    if (facts.state(root) != ProcedureState.FAILED) {
      rootNeedsCause = !facts.hasFailure(root);
      batch.add(root);
    }
    for (P m : members) {
      if (m != root && !facts.isFinished(m) && facts.state(m) != ProcedureState.FAILED) {
        batch.add(m);
      }
    }
    return new TreeFailure<>(rootNeedsCause, batch);
  }

  /**
   * The move for {@code newest}, the newest entry of the stack of root {@code rootProcId} (null
   * when the stack is empty).
   */
  static <P> Next<P> next(long rootProcId, P newest, ProcedureFacts<P> facts) {
    if (newest == null) {
      return new Next<>(Move.FINISH, null, false, false, false);
    }
    ProcedureState state = facts.state(newest);
    if (state == ProcedureState.SUCCESS) {
      return new Next<>(Move.SKIP, newest, false, false, false);
    }
    boolean rolledBack = facts.stackIndexes(newest).length <= 1;
    boolean persist =
        facts.procId(newest) != rootProcId || !(rolledBack || facts.isFinished(newest));
    return new Next<>(Move.UNDO, newest, state != ProcedureState.FAILED, rolledBack, persist);
  }

  /**
   * Once every entry is gone: the members that end ROLLEDBACK (through FAILED if they are not
   * FAILED yet), that is every member neither SUCCESS nor ROLLEDBACK already.
   */
  static <P> List<P> membersToRollBack(List<P> members, ProcedureFacts<P> facts) {
    List<P> out = new ArrayList<>(members.size());
    for (P m : members) {
      ProcedureState s = facts.state(m);
      if (s != ProcedureState.SUCCESS && s != ProcedureState.ROLLEDBACK) {
        out.add(m);
      }
    }
    return out;
  }
}
