package dev.baton.consensus;

import dev.baton.consensus.proto.AuditRecord;

/**
 * One operator action of the replicated audit trail, and its outcome once the leader's executor
 * carried it out.
 *
 * @param index the log index of the action's entry (its id)
 * @param procId the procedure it names
 * @param action {@code abort}, {@code force-fail}, {@code bypass}, {@code retry-now}, or {@value
 *     #FLOW_RESUME} (a flow resume: {@code procId} is the flow)
 * @param principal who asked, as their token named them
 * @param reason why, in the operator's words
 * @param timeMillis when they asked (epoch ms)
 * @param recursive for a bypass: the procedure's unfinished descendants too
 * @param flowNode for a flow resume: the node resumed; empty otherwise
 * @param resumeAction for a flow resume: how ({@code RERUN}, {@code MARK_SUCCEEDED}, {@code
 *     MARK_FAILED}); empty otherwise
 * @param decided whether the outcome is known
 * @param refused whether the executor refused it (the outcome says why)
 * @param outcome what the action did, or why it was refused; empty until decided
 */
public record AuditEntry(
    long index,
    long procId,
    String action,
    String principal,
    String reason,
    long timeMillis,
    boolean recursive,
    String flowNode,
    String resumeAction,
    boolean decided,
    boolean refused,
    String outcome) {

  /**
   * The action label of a flow resume: carried out by the flow (through a durable command
   * procedure), then recorded decided, with its outcome, in one entry.
   */
  public static final String FLOW_RESUME = "resume";

  static AuditEntry of(AuditRecord r) {
    return new AuditEntry(
        r.getIndex(),
        r.getAction().getProcId(),
        r.getAction().getAction(),
        r.getAction().getPrincipal(),
        r.getAction().getReason(),
        r.getAction().getTimeMillis(),
        r.getAction().getRecursive(),
        r.getAction().getFlowNode(),
        r.getAction().getResumeAction(),
        r.getDecided(),
        r.getRefused(),
        r.getOutcome());
  }
}
