package dev.baton.procedure;

/**
 * A read-only snapshot of a procedure, safe to hand to clients.
 *
 * @param stepName current user state name for a {@link StateMachineProcedure}, else null
 * @param failure null unless failed; for a corrupt stored record, the reason it could not be read
 * @param finished whether the procedure reached its terminal state: SUCCESS, ROLLEDBACK, or FAILED
 *     with nothing left to undo (a FAILED procedure that is still rolling back is not finished)
 * @param waitReason why a live procedure is not going on now, when the executor knows (a lock and
 *     its holder, a full limiter, children, a timed wait or backoff, each with its deadline, or the
 *     call its running step reported); null for a procedure that runs or is queued to run, for a
 *     finished one, and in stored snapshots
 * @param blockedOn the same wait as data ({@link BlockedOn}); {@code waitReason} is its text. Null
 *     where {@code waitReason} is, except that a procedure queued for a worker is {@link
 *     BlockedOn.NoFreeWorker} and a running one that reported a call is {@link
 *     BlockedOn.ExternalCall}
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
    boolean finished,
    String waitReason,
    BlockedOn blockedOn) {

  /** The form without a wait reason (null). */
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
      String failure,
      boolean finished) {
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
        finished,
        null,
        null);
  }

  /** Keeps its own copy of the result bytes, so the snapshot cannot be changed from outside. */
  public ProcedureInfo {
    result = result == null ? null : result.clone();
  }

  /**
   * The form without {@code finished}, derived as SUCCESS or ROLLEDBACK (a FAILED procedure counts
   * as not finished), and without a wait reason.
   */
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

  /** The procedure's result bytes (a copy), or null. */
  @Override
  public byte[] result() {
    return result == null ? null : result.clone();
  }

  /** This snapshot with {@code reason} as its wait reason (and no blocker). */
  public ProcedureInfo withWaitReason(String reason) {
    return withBlockedOn(null, reason);
  }

  /** This snapshot blocked on {@code blocker}, with {@code reason} as its wait reason. */
  public ProcedureInfo withBlockedOn(BlockedOn blocker, String reason) {
    return new ProcedureInfo(
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
        finished,
        reason,
        blocker);
  }

  /** Whether the procedure finished successfully. */
  public boolean isSuccess() {
    return state == ProcedureState.SUCCESS;
  }
}
