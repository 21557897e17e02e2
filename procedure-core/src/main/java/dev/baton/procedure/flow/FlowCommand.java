package dev.baton.procedure.flow;

import java.util.List;

/**
 * An operator action on a flow, carried durably by a {@link FlowCommandProcedure} and applied by
 * the flow's own step (the one place that changes the flow's state).
 *
 * @param commandId the procId of the command procedure (applied at most once per flow)
 */
record FlowCommand(
    long commandId,
    long flowId,
    Kind kind,
    String node,
    ResumeAction action,
    List<NodeSpec> nodes) {
  enum Kind {
    RESUME,
    APPEND
  }

  FlowCommand {
    nodes = List.copyOf(nodes);
  }
}
