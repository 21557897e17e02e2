package dev.baton.consensus;

import dev.baton.consensus.proto.OperatorActionEntry;
import dev.baton.procedure.OperatorAction;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureRegistry;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.ratis.server.RaftServer;

/**
 * What an operator does to procedures through a {@link ProcedureNode}, and what the operator reads
 * back of it: aborts, audited actions (abort, force-fail, bypass, retry-now) as replicated log
 * entries carrying the principal and a reason, flow resumes recorded in the same audit trail, the
 * audit trail itself, and a procedure's timeline from the node's Raft log.
 *
 * <p>Holds no state of its own: it builds the log entries and hands them to the node's calls into
 * the cluster ({@link NodeCalls}), which it asks the node for at each call (the node may not be
 * started, or closed).
 */
final class OperatorDesk {
  private final String nodeId;
  private final Supplier<NodeCalls> calls;
  private final Supplier<Optional<RaftServer.Division>> division;
  private final ProcedureRegistry registry;

  /**
   * @param calls the node's calls into the cluster; throws {@link IllegalStateException} when the
   *     node is not started
   * @param division the node's Raft division, empty while it serves no group
   */
  OperatorDesk(
      String nodeId,
      Supplier<NodeCalls> calls,
      Supplier<Optional<RaftServer.Division>> division,
      ProcedureRegistry registry) {
    this.nodeId = nodeId;
    this.calls = calls;
    this.division = division;
    this.registry = registry;
  }

  /** Asks the leader's executor to abort a procedure; false if unknown, finished or refused. */
  CompletableFuture<Boolean> abort(long procId) {
    return calls.get().abort(procId);
  }

  /**
   * An operator's action on a procedure, as an audited log entry; see {@link ProcedureNode#act}.
   */
  CompletableFuture<AuditEntry> act(
      OperatorAction action, long procId, boolean recursive, String principal, String reason) {
    return calls
        .get()
        .act(
            OperatorActionEntry.newBuilder()
                .setProcId(procId)
                .setAction(action.label())
                .setPrincipal(principal)
                .setReason(reason == null ? "" : reason)
                .setTimeMillis(System.currentTimeMillis())
                .setRecursive(recursive)
                .build());
  }

  /**
   * A flow resume carried out or refused.
   *
   * @param flowId the flow procedure
   * @param node the flow's node resumed
   * @param action how: {@code RERUN}, {@code MARK_SUCCEEDED} or {@code MARK_FAILED}
   * @param refused whether the resume was refused; {@code outcome} then says why
   */
  record FlowResume(long flowId, String node, String action, boolean refused, String outcome) {}

  /** A flow resume into the audit trail, decided with its outcome; see {@link ProcedureNode}. */
  CompletableFuture<AuditEntry> recordResume(FlowResume resume, String principal, String reason) {
    return calls
        .get()
        .record(
            OperatorActionEntry.newBuilder()
                .setProcId(resume.flowId())
                .setAction(AuditEntry.FLOW_RESUME)
                .setFlowNode(resume.node())
                .setResumeAction(resume.action())
                .setPrincipal(principal)
                .setReason(reason == null ? "" : reason)
                .setTimeMillis(System.currentTimeMillis())
                .setDecided(true)
                .setRefused(resume.refused())
                .setOutcome(resume.outcome())
                .build());
  }

  /** A linearizable read of the audit trail of operator actions, oldest first. */
  CompletableFuture<List<AuditEntry>> audit() {
    return calls.get().audit();
  }

  /**
   * The state timeline of a procedure from this node's Raft log (committed entries).
   *
   * @throws IOException when the log cannot be read, or this node serves no Raft group
   */
  ProcedureHistory history(long procId) throws IOException {
    RaftServer.Division d =
        division
            .get()
            .orElseThrow(() -> new IOException("node " + nodeId + " serves no Raft group"));
    return ProcedureHistory.read(d.getRaftLog(), new ProcedureCodec(registry), procId);
  }
}
