package dev.baton.confignode.admin;

import dev.baton.procedure.BlockedOn;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A procedure as admin API clients see it: {@link ProcedureInfo} with the result as UTF-8 text.
 *
 * @param waitReason why a live procedure does not run now (the lock it waits for and its holder,
 *     children, a backoff); known only on the leader, whose executor parks it, so null when a
 *     follower answers
 * @param blockedOn the same wait as data ({@link WaitJson#blockedOn}): {@code kind} ({@code lock},
 *     {@code children}, {@code timer}, {@code externalCall}, {@code concurrencyLimit}, {@code
 *     noFreeWorker}, {@code suspended}, {@code notLeader}), its fields and {@code waitsFor}; null
 *     when it waits on nothing or a follower answers
 */
public record ProcedureView(
    long procId,
    long parentProcId,
    long rootProcId,
    String type,
    ProcedureState state,
    String step,
    boolean finished,
    long submittedTime,
    long lastUpdate,
    String failure,
    String result,
    String waitReason,
    Map<String, Object> blockedOn) {

  static ProcedureView of(ProcedureInfo i, String waitReason, BlockedOn blockedOn) {
    return new ProcedureView(
        i.procId(),
        i.parentProcId(),
        i.rootProcId(),
        i.type(),
        i.state(),
        i.stepName(),
        i.finished(),
        i.submittedTime(),
        i.lastUpdate(),
        i.failure(),
        i.result() == null ? null : new String(i.result(), StandardCharsets.UTF_8),
        i.waitReason() != null ? i.waitReason() : waitReason,
        WaitJson.blockedOn(i.blockedOn() != null ? i.blockedOn() : blockedOn));
  }
}
