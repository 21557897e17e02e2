package dev.baton.procedure.flow;

import java.util.ArrayList;
import java.util.List;

/**
 * A finite flow: task nodes and parent → child edges forming a DAG with exactly one start and one
 * end node. {@link Builder#build} checks the shape (see {@link DagValidator}); task types and
 * custom predicates are checked against a {@link FlowRuntime} at submission.
 */
public record FlowDefinition(List<NodeSpec> nodes, List<Edge> edges) {
  /** Most nodes a finite flow may have. */
  public static final int MAX_NODES = 100_000;

  /** A parent → child edge. */
  public record Edge(String parent, String child) {}

  public FlowDefinition {
    nodes = List.copyOf(nodes);
    edges = List.copyOf(edges);
    DagValidator.validate(nodes, edges);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Collects nodes and edges; {@link #build} validates. */
  public static final class Builder {
    private final List<NodeSpec> nodes = new ArrayList<>();
    private final List<Edge> edges = new ArrayList<>();

    /** Adds a task node; names are unique (checked by {@link #build}). */
    public Builder node(NodeSpec node) {
      nodes.add(node);
      return this;
    }

    /**
     * Adds an edge: {@code child} is triggered by {@code parent} (both named by {@link #node};
     * checked by {@link #build}).
     */
    public Builder edge(String parent, String child) {
      edges.add(new Edge(parent, child));
      return this;
    }

    /**
     * @throws InvalidFlowException for a cycle (naming its nodes), several or no start or end
     *     nodes, a duplicate node, a dangling edge or a trigger naming a non-parent
     */
    public FlowDefinition build() {
      return new FlowDefinition(nodes, edges);
    }
  }
}
