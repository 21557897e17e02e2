package dev.baton.confignode.admin;

import dev.baton.consensus.AuditEntry;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.flow.FlowInfo;
import dev.baton.procedure.flow.NodeState;
import dev.baton.procedure.flow.ResumeAction;
import java.util.List;

/**
 * What resuming a node of a flow would change, or why it is refused: the answer of a resume's dry
 * run, and the check before a resume. Made from the flow as of its last persisted step (the
 * replicated view, the same on every node).
 *
 * @param action {@value AuditEntry#FLOW_RESUME}
 * @param flowId the flow
 * @param node the node named
 * @param resumeAction how it would be resumed
 * @param refusal why the resume is not allowed now; null when it is
 * @param states the node's state now and the one the resume leaves it in (empty when refused)
 * @param effect one sentence saying what happens; null when refused
 */
record FlowResumePlan(
    String action,
    long flowId,
    String node,
    ResumeAction resumeAction,
    String refusal,
    List<NodeChange> states,
    String effect) {

  /** A flow node's state now and the one the resume leaves it in. */
  record NodeChange(String node, NodeState from, NodeState to) {}

  FlowResumePlan {
    states = List.copyOf(states);
  }

  /**
   * The plan for resuming {@code node} of the flow {@code info} with {@code how}: refused for a
   * finished flow, a node shown PENDING only because an ancestor is, or a node that is not PENDING.
   *
   * @param flow the flow view of {@code info}, which names {@code node}
   */
  static FlowResumePlan of(ProcedureInfo info, FlowInfo flow, String node, ResumeAction how) {
    FlowInfo.NodeInfo n = flow.node(node).orElseThrow();
    String where = "node '" + node + "' of flow " + flow.flowId();
    if (info.finished()) {
      return refused(
          flow,
          node,
          how,
          "flow "
              + flow.flowId()
              + " is finished ("
              + info.state()
              + "): none of its nodes is PENDING any more");
    }
    if (n.state() != NodeState.PENDING) {
      return refused(
          flow,
          node,
          how,
          where + " is " + n.state() + ", not PENDING; only a PENDING node resumes");
    }
    if (n.suspensions() == 0) {
      return refused(
          flow,
          node,
          how,
          where + " is shown PENDING because it " + n.detail() + "; resume that node");
    }
    NodeState to =
        switch (how) {
          case RERUN -> NodeState.READY;
          case MARK_SUCCEEDED -> NodeState.SUCCESS;
          case MARK_FAILED -> NodeState.ERROR;
        };
    String effect =
        switch (how) {
          case RERUN ->
              where + " runs its " + n.taskType() + " task again, with a fresh retry budget";
          case MARK_SUCCEEDED -> where + " counts as succeeded and the flow goes on";
          case MARK_FAILED ->
              where + " counts as failed (ERROR) and the flow goes on as its triggers allow";
        };
    return new FlowResumePlan(
        AuditEntry.FLOW_RESUME,
        flow.flowId(),
        node,
        how,
        null,
        List.of(new NodeChange(node, n.state(), to)),
        effect);
  }

  private static FlowResumePlan refused(FlowInfo flow, String node, ResumeAction how, String why) {
    return new FlowResumePlan(
        AuditEntry.FLOW_RESUME, flow.flowId(), node, how, why, List.of(), null);
  }

  boolean allowed() {
    return refusal == null;
  }
}
