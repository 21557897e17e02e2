package dev.baton.procedure;

/**
 * A read-only snapshot of a procedure, safe to hand to clients.
 *
 * @param stepName current user state name for a {@link StateMachineProcedure}, else null
 * @param failure null unless failed; for a corrupt stored record, the reason it could not be read
 * @param finished whether the procedure reached its terminal state: SUCCESS, ROLLEDBACK, or FAILED
 *     with nothing left to undo (a FAILED procedure that is still rolling back is not finished)
 */
public record ProcedureInfo(
    long procId,
    long parentProcId,
    long rootProcId,
    String type,
    ProcedureState state,
    String stepName,
    long submittedTime,
    long lastUpdate,
    byte[] result,
    String failure,
    boolean finished) {

  /** The API.md form: finished is derived as SUCCESS or ROLLEDBACK. */
  public ProcedureInfo(
      long procId,
      long parentProcId,
      long rootProcId,
      String type,
      ProcedureState state,
      String stepName,
      long submittedTime,
      long lastUpdate,
      byte[] result,
      String failure) {
    this(
        procId,
        parentProcId,
        rootProcId,
        type,
        state,
        stepName,
        submittedTime,
        lastUpdate,
        result,
        failure,
        state == ProcedureState.SUCCESS || state == ProcedureState.ROLLEDBACK);
  }

  /** Whether the procedure finished successfully. */
  public boolean isSuccess() {
    return state == ProcedureState.SUCCESS;
  }
}
