package dev.baton.procedure;

import java.util.Arrays;
import java.util.Objects;

/**
 * A read-only snapshot of a procedure, safe to hand to clients. Its result, when the procedure
 * keeps it in record parts, is put together on the first read ({@link #result()}).
 *
 * <p>Fields:
 *
 * <ul>
 *   <li>{@code stepName}: the current user state name for a {@link StateMachineProcedure}, else
 *       null
 *   <li>{@code failure}: null unless failed; for a corrupt stored record, the reason it could not
 *       be read
 *   <li>{@code finished}: whether the procedure reached its terminal state: SUCCESS, ROLLEDBACK, or
 *       FAILED with nothing left to undo (a FAILED procedure that is still rolling back is not
 *       finished)
 *   <li>{@code waitReason}: why a live procedure is not going on now, when the executor knows (a
 *       lock and its holder, a full limiter, children, a timed wait or backoff, each with its
 *       deadline, or the call its running step reported); null for a procedure that runs or is
 *       queued to run, for a finished one, and in stored snapshots
 *   <li>{@code blockedOn}: the same wait as data ({@link BlockedOn}); {@code waitReason} is its
 *       text. Null where {@code waitReason} is, except that a procedure queued for a worker is
 *       {@link BlockedOn.NoFreeWorker} and a running one that reported a call is {@link
 *       BlockedOn.ExternalCall}
 * </ul>
 */
public final class ProcedureInfo {
  private final long procId;
  private final long parentProcId;
  private final long rootProcId;
  private final String type;
  private final ProcedureState state;
  private final String stepName;
  private final long submittedTime;
  private final long lastUpdate;
  private final ResultBytes result;
  private final String failure;
  private final boolean finished;
  private final String waitReason;
  private final BlockedOn blockedOn;

  /** Every field; keeps its own copy of the result bytes. */
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
      boolean finished,
      String waitReason,
      BlockedOn blockedOn) {
    this.procId = procId;
    this.parentProcId = parentProcId;
    this.rootProcId = rootProcId;
    this.type = type;
    this.state = state;
    this.stepName = stepName;
    this.submittedTime = submittedTime;
    this.lastUpdate = lastUpdate;
    this.result = ResultBytes.copyOf(result);
    this.failure = failure;
    this.finished = finished;
    this.waitReason = waitReason;
    this.blockedOn = blockedOn;
  }

  /** {@code base} with {@code result} (shared: its bytes are never changed) and the wait given. */
  private ProcedureInfo(
      ProcedureInfo base, ResultBytes result, String waitReason, BlockedOn blockedOn) {
    this.procId = base.procId;
    this.parentProcId = base.parentProcId;
    this.rootProcId = base.rootProcId;
    this.type = base.type;
    this.state = base.state;
    this.stepName = base.stepName;
    this.submittedTime = base.submittedTime;
    this.lastUpdate = base.lastUpdate;
    this.result = result;
    this.failure = base.failure;
    this.finished = base.finished;
    this.waitReason = waitReason;
    this.blockedOn = blockedOn;
  }

  /** This snapshot with {@code result} as its result. */
  ProcedureInfo withResult(ResultBytes result) {
    return new ProcedureInfo(this, result, waitReason, blockedOn);
  }

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

  public long procId() {
    return procId;
  }

  public long parentProcId() {
    return parentProcId;
  }

  public long rootProcId() {
    return rootProcId;
  }

  public String type() {
    return type;
  }

  public ProcedureState state() {
    return state;
  }

  /** The current user state name for a {@link StateMachineProcedure}, else null. */
  public String stepName() {
    return stepName;
  }

  public long submittedTime() {
    return submittedTime;
  }

  public long lastUpdate() {
    return lastUpdate;
  }

  /**
   * The procedure's result bytes (a copy), or null. For a record with parts, the result is its
   * head's result followed by its parts in index order, put together on the first call.
   */
  public byte[] result() {
    byte[] r = result.bytes();
    return r == null ? null : r.clone();
  }

  public String failure() {
    return failure;
  }

  public boolean finished() {
    return finished;
  }

  public String waitReason() {
    return waitReason;
  }

  public BlockedOn blockedOn() {
    return blockedOn;
  }

  /** This snapshot with {@code reason} as its wait reason (and no blocker). */
  public ProcedureInfo withWaitReason(String reason) {
    return withBlockedOn(null, reason);
  }

  /** This snapshot blocked on {@code blocker}, with {@code reason} as its wait reason. */
  public ProcedureInfo withBlockedOn(BlockedOn blocker, String reason) {
    return new ProcedureInfo(this, result, reason, blocker);
  }

  /** Whether the procedure finished successfully. */
  public boolean isSuccess() {
    return state == ProcedureState.SUCCESS;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ProcedureInfo other
        && procId == other.procId
        && parentProcId == other.parentProcId
        && rootProcId == other.rootProcId
        && submittedTime == other.submittedTime
        && lastUpdate == other.lastUpdate
        && finished == other.finished
        && state == other.state
        && Objects.equals(type, other.type)
        && Objects.equals(stepName, other.stepName)
        && Objects.equals(failure, other.failure)
        && Objects.equals(waitReason, other.waitReason)
        && Objects.equals(blockedOn, other.blockedOn)
        && Arrays.equals(result.bytes(), other.result.bytes());
  }

  @Override
  public int hashCode() {
    return Objects.hash(procId, state, lastUpdate, stepName, failure, waitReason);
  }

  @Override
  public String toString() {
    return "ProcedureInfo[procId="
        + procId
        + ", parentProcId="
        + parentProcId
        + ", rootProcId="
        + rootProcId
        + ", type="
        + type
        + ", state="
        + state
        + ", stepName="
        + stepName
        + ", submittedTime="
        + submittedTime
        + ", lastUpdate="
        + lastUpdate
        + ", result="
        + result
        + ", failure="
        + failure
        + ", finished="
        + finished
        + ", waitReason="
        + waitReason
        + ", blockedOn="
        + blockedOn
        + "]";
  }
}
