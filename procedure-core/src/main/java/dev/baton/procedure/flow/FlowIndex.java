package dev.baton.procedure.flow;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.Deque;
import java.util.List;

/**
 * What a {@link FlowGraph} derives from its nodes so a step costs what changed, not the flow's
 * size: node counts per state, the READY and RUNNING nodes, a finite flow's topological order, and
 * the candidates of the next trigger evaluation (nodes whose parents changed, by position in
 * topological order). Not persisted: a graph read back from a record starts with every node a
 * candidate.
 *
 * <p>Fed by {@link FlowNode} on every change of a node's state, pending flag or detail.
 */
final class FlowIndex {
  private final FlowGraph g;
  private final int[] counts = new int[NodeState.values().length];

  /** READY and RUNNING nodes, by slot (a node's place among the kept, not folded, nodes). */
  private final BitSet ready = new BitSet();

  private final BitSet running = new BitSet();

  /** Candidates of the next evaluation, by position (see {@link #position}). */
  private final BitSet candidates = new BitSet();

  /** Nodes with a custom trigger: evaluated again whenever any node changed. */
  private final List<Integer> customNodes = new ArrayList<>();

  /** Every node is a candidate of the next evaluation (a new or read back graph). */
  private boolean allCandidates = true;

  /** A node changed since the last evaluation. */
  private boolean changed;

  /** Finite flows: the nodes in topological order, once computed. */
  private List<FlowNode> topologicalOrder;

  /** Finite flows: the position of each node (by index) in topological order, once computed. */
  private int[] positions;

  FlowIndex(FlowGraph g) {
    this.g = g;
  }

  void added(FlowNode n) {
    counts[n.state().ordinal()]++;
    track(n, n.state(), true);
    if (n.spec().trigger().kind() == Trigger.Kind.CUSTOM) {
      customNodes.add(n.index());
    }
    markCandidate(n);
    changed = true;
  }

  /** {@code parent} became a parent of {@code child}. */
  void linked(FlowNode parent, FlowNode child) {
    child.countParent(parent.state(), 1);
    markCandidate(child);
    changed = true;
  }

  /** A node's state, pending flag or detail changed (from {@code before}). */
  void changed(FlowNode n, NodeState before) {
    NodeState now = n.state();
    if (before != now) {
      counts[before.ordinal()]--;
      counts[now.ordinal()]++;
      track(n, before, false);
      track(n, now, true);
      for (int c : n.children()) {
        FlowNode child = g.node(c);
        child.countParent(before, -1);
        child.countParent(now, 1);
      }
    }
    for (int c : n.children()) {
      markCandidate(g.node(c));
    }
    if (now == NodeState.WAIT) {
      markCandidate(n); // linked, or no longer shown PENDING: its trigger decides again
    }
    g.encodingChanged(n.index());
    changed = true;
  }

  private void track(FlowNode n, NodeState s, boolean in) {
    if (s == NodeState.READY) {
      ready.set(slot(n.index()), in);
    } else if (s == NodeState.RUNNING) {
      running.set(slot(n.index()), in);
    }
  }

  private int slot(int index) {
    return index - g.folded();
  }

  /** A finished node is being folded away. */
  void removed(FlowNode n) {
    counts[n.state().ordinal()]--;
    customNodes.remove(Integer.valueOf(n.index()));
  }

  /** The first {@code count} kept nodes were folded: every slot moves down by {@code count}. */
  void shift(int count) {
    for (BitSet b : List.of(ready, running, candidates)) {
      BitSet rest = b.get(count, Math.max(count, b.length()));
      b.clear();
      b.or(rest);
    }
  }

  private void markCandidate(FlowNode n) {
    if (!allCandidates) {
      candidates.set(position(n.index()));
    }
  }

  int count(NodeState s) {
    return counts[s.ordinal()];
  }

  /** READY nodes, by slot. */
  BitSet ready() {
    return ready;
  }

  /** RUNNING nodes, by slot. */
  BitSet running() {
    return running;
  }

  /** The node's position in topological order (parents first): a stream's is its slot. */
  int position(int index) {
    return positions == null ? slot(index) : positions[index];
  }

  /**
   * The candidates of an evaluation, by position: every node after a start, else the nodes whose
   * parents changed and, if anything changed, the custom-trigger nodes. Live: the evaluation clears
   * each position it takes, and nodes its decisions change mark their children (always at later
   * positions), so one pass in position order reaches the descendants.
   */
  BitSet candidates() {
    if (allCandidates) {
      allCandidates = false;
      candidates.set(0, g.nodes().size()); // slots, or positions of a finite flow
    } else if (changed) {
      for (int i : customNodes) {
        candidates.set(position(i));
      }
    }
    return candidates;
  }

  /** The evaluation ended: the custom-trigger nodes saw every change up to now. */
  void evaluated() {
    changed = false;
  }

  /**
   * Finite flows: the nodes in topological order (parents first), computed once, as the structure
   * never changes after creation; streams: null (a chain is in index order).
   */
  List<FlowNode> topologicalOrder() {
    if (g.isStream()) {
      return null;
    }
    if (topologicalOrder == null) {
      topologicalOrder = Collections.unmodifiableList(computeTopologicalOrder());
      int[] p = new int[topologicalOrder.size()];
      for (int i = 0; i < p.length; i++) {
        p[topologicalOrder.get(i).index()] = i;
      }
      positions = p;
    }
    return topologicalOrder;
  }

  private List<FlowNode> computeTopologicalOrder() {
    List<FlowNode> nodes = g.nodes();
    int[] missing = new int[nodes.size()];
    Deque<FlowNode> roots = new ArrayDeque<>();
    for (FlowNode n : nodes) {
      missing[n.index()] = n.parents().size();
      if (missing[n.index()] == 0) {
        roots.add(n);
      }
    }
    List<FlowNode> order = new ArrayList<>(nodes.size());
    while (!roots.isEmpty()) {
      FlowNode n = roots.poll();
      order.add(n);
      for (int c : n.children()) {
        if (--missing[c] == 0) {
          roots.add(g.node(c));
        }
      }
    }
    return order;
  }
}
