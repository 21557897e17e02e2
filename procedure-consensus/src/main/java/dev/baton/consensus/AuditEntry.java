package dev.baton.consensus;

import dev.baton.consensus.proto.AuditRecord;

/**
 * One operator action of the replicated audit trail, and its outcome once the leader's executor
 * carried it out.
 *
 * @param index the log index of the action's entry (its id)
 * @param procId the procedure it names
 * @param action {@code force-fail}, {@code bypass} or {@code retry-now}
 * @param principal who asked, as their token named them
 * @param reason why, in the operator's words
 * @param timeMillis when they asked (epoch ms)
 * @param recursive for a bypass: the procedure's unfinished descendants too
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
    boolean decided,
    boolean refused,
    String outcome) {

  static AuditEntry of(AuditRecord r) {
    return new AuditEntry(
        r.getIndex(),
        r.getAction().getProcId(),
        r.getAction().getAction(),
        r.getAction().getPrincipal(),
        r.getAction().getReason(),
        r.getAction().getTimeMillis(),
        r.getAction().getRecursive(),
        r.getDecided(),
        r.getRefused(),
        r.getOutcome());
  }
}
