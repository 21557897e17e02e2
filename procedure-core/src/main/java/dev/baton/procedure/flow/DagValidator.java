package dev.baton.procedure.flow;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Checks the shape of a finite flow. Pure: no threads, no executor. */
final class DagValidator {
  private DagValidator() {}

  static void validate(List<NodeSpec> nodes, List<FlowDefinition.Edge> edges) {
    if (nodes.isEmpty()) {
      throw new InvalidFlowException("a flow needs at least one node");
    }
    if (nodes.size() > FlowDefinition.MAX_NODES) {
      throw new InvalidFlowException(
          "a flow has at most " + FlowDefinition.MAX_NODES + " nodes, got " + nodes.size());
    }
    Map<String, Integer> index = new HashMap<>();
    for (NodeSpec n : nodes) {
      if (index.putIfAbsent(n.name(), index.size()) != null) {
        throw new InvalidFlowException("duplicate node name '" + n.name() + "'");
      }
    }
    List<List<Integer>> children = new ArrayList<>();
    List<Set<String>> parents = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      children.add(new ArrayList<>());
      parents.add(new HashSet<>());
    }
    Set<FlowDefinition.Edge> seen = new HashSet<>();
    for (FlowDefinition.Edge e : edges) {
      Integer p = index.get(e.parent());
      Integer c = index.get(e.child());
      if (p == null || c == null) {
        throw new InvalidFlowException(
            "dangling edge "
                + e.parent()
                + " -> "
                + e.child()
                + ": unknown node '"
                + (p == null ? e.parent() : e.child())
                + "'");
      }
      if (!seen.add(e)) {
        throw new InvalidFlowException("duplicate edge " + e.parent() + " -> " + e.child());
      }
      children.get(p).add(c);
      parents.get(c).add(e.parent());
    }
    checkNoCycle(nodes, children);
    List<String> starts = new ArrayList<>();
    List<String> ends = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      if (parents.get(i).isEmpty()) {
        starts.add(nodes.get(i).name());
      }
      if (children.get(i).isEmpty()) {
        ends.add(nodes.get(i).name());
      }
    }
    if (starts.size() != 1) {
      throw new InvalidFlowException("a flow needs exactly one start node, found " + starts);
    }
    if (ends.size() != 1) {
      throw new InvalidFlowException("a flow needs exactly one end node, found " + ends);
    }
    for (int i = 0; i < nodes.size(); i++) {
      checkTrigger(nodes.get(i), parents.get(i));
    }
  }

  /** A trigger may only name or count the node's parents. */
  static void checkTrigger(NodeSpec node, Set<String> parents) {
    Trigger t = node.trigger();
    if (t.kind() == Trigger.Kind.NAMED && !parents.containsAll(t.parents())) {
      Set<String> extra = new HashSet<>(t.parents());
      extra.removeAll(parents);
      throw new InvalidFlowException(
          "node '" + node.name() + "' trigger names nodes that are not its parents: " + extra);
    }
    if (t.kind() == Trigger.Kind.AT_LEAST && t.count() > parents.size() && !parents.isEmpty()) {
      throw new InvalidFlowException(
          "node '"
              + node.name()
              + "' needs "
              + t.count()
              + " succeeded parents but has only "
              + parents.size());
    }
  }

  /** Iterative depth-first search; a back edge closes a cycle, reported with its nodes in order. */
  private static void checkNoCycle(List<NodeSpec> nodes, List<List<Integer>> children) {
    int n = nodes.size();
    byte[] color = new byte[n]; // 0 new, 1 on the path, 2 done
    int[] next = new int[n];
    int[] pathPos = new int[n];
    for (int root = 0; root < n; root++) {
      if (color[root] != 0) {
        continue;
      }
      Deque<Integer> path = new ArrayDeque<>();
      List<Integer> pathList = new ArrayList<>();
      path.push(root);
      pathPos[root] = pathList.size();
      pathList.add(root);
      color[root] = 1;
      while (!path.isEmpty()) {
        int v = path.peek();
        if (next[v] < children.get(v).size()) {
          int c = children.get(v).get(next[v]++);
          if (color[c] == 1) {
            List<String> cycle = new ArrayList<>();
            for (int i = pathPos[c]; i < pathList.size(); i++) {
              cycle.add(nodes.get(pathList.get(i)).name());
            }
            cycle.add(nodes.get(c).name());
            throw new InvalidFlowException("the flow has a cycle: " + String.join(" -> ", cycle));
          }
          if (color[c] == 0) {
            color[c] = 1;
            path.push(c);
            pathPos[c] = pathList.size();
            pathList.add(c);
          }
        } else {
          color[v] = 2;
          path.pop();
          pathList.remove(pathList.size() - 1);
        }
      }
    }
  }
}
