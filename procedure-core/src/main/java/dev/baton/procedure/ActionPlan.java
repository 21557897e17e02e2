package dev.baton.procedure;

import java.util.List;

/**
 * What an {@link OperatorAction} on a procedure changes, or why it is refused: the answer of a dry
 * run, and of the action itself.
 *
 * @param action the action
 * @param procId the procedure it names
 * @param refusal why the action is not allowed now; null when it is
 * @param states the procedures whose state it changes, each from its state now to the one it leaves
 * @param locksReleased the locks it gives up (held, or waited for: {@code resource (waiting)})
 * @param childrenAffected live descendants of the procedure that the action reaches
 * @param effect one sentence saying what happens
 */
public record ActionPlan(
    OperatorAction action,
    long procId,
    String refusal,
    List<StateChange> states,
    List<String> locksReleased,
    List<Long> childrenAffected,
    String effect) {

  /** One procedure's state now and the one the action leaves it in. */
  public record StateChange(long procId, String type, ProcedureState from, ProcedureState to) {}

  public ActionPlan {
    states = List.copyOf(states);
    locksReleased = List.copyOf(locksReleased);
    childrenAffected = List.copyOf(childrenAffected);
  }

  static ActionPlan refused(OperatorAction action, long procId, String why) {
    return new ActionPlan(action, procId, why, List.of(), List.of(), List.of(), null);
  }

  public boolean allowed() {
    return refusal == null;
  }
}
