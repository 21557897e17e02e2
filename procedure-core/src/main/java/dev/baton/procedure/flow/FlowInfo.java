package dev.baton.procedure.flow;

import java.util.List;
import java.util.Optional;

/**
 * A read-only view of a flow and all its nodes, as of its last persisted step.
 *
 * @param scene stream flows only, else empty
 * @param group stream flows only, else empty
 * @param detail why the flow ended early (END_FLOW), else empty
 * @param nodes the nodes, except a stream's folded ones
 * @param folded a stream's finished prefix, folded into counts (none for a finite flow)
 */
public record FlowInfo(
    long flowId,
    Kind kind,
    String scene,
    String group,
    FlowState state,
    String detail,
    List<NodeInfo> nodes,
    Folded folded) {
  /** Finite DAG or growing stream chain. */
  public enum Kind {
    FINITE,
    STREAM
  }

  public FlowInfo {
    nodes = List.copyOf(nodes);
    folded = folded == null ? Folded.NONE : folded;
  }

  /**
   * The finished prefix of a stream that is no longer listed node by node: its nodes finished (and
   * so had the node after each), so none is needed again; their names stay taken.
   *
   * @param nodes how many nodes were folded
   * @param succeeded how many of them succeeded
   * @param failed how many of them failed (ERROR)
   */
  public record Folded(int nodes, int succeeded, int failed) {
    /** Nothing folded. */
    public static final Folded NONE = new Folded(0, 0, 0);
  }

  /** The node named {@code name}. */
  public Optional<NodeInfo> node(String name) {
    return nodes.stream().filter(n -> n.name().equals(name)).findFirst();
  }

  /**
   * One node.
   *
   * @param parents names of its parents (a stream node: its predecessor, or none if it heads a
   *     part)
   * @param attempts task attempts started so far (since the last resume)
   * @param taskProcId the procedure of the latest attempt, 0 if none
   * @param detail why the node is in its state (a failure, "never triggered", an operator action)
   * @param suspensions how often the node was suspended (PENDING after its retries)
   */
  public record NodeInfo(
      String name,
      String taskType,
      NodeState state,
      List<String> parents,
      int attempts,
      long taskProcId,
      String detail,
      int suspensions) {
    public NodeInfo {
      parents = List.copyOf(parents);
    }
  }
}
