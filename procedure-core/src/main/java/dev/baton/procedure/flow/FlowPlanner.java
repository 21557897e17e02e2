package dev.baton.procedure.flow;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The decisions of a flow, on its {@link FlowGraph}: task outcomes with retries and failure
 * policies, trigger evaluation with PENDING propagation, operator resumes, stream appends and
 * batched linking. Pure: no threads, no clock (time is passed in), no executor.
 */
final class FlowPlanner {
  /** Most appended nodes linked to a stream chain in one batch. */
  static final int LINK_BATCH = 100;

  private static final int MAX_BACKOFF_SHIFT = 20;

  private final FlowGraph g;
  private final Function<String, Predicate<Map<String, NodeState>>> predicates;

  FlowPlanner(FlowGraph g, Function<String, Predicate<Map<String, NodeState>>> predicates) {
    this.g = g;
    this.predicates = predicates;
  }

  /**
   * The task of a RUNNING node finished. Returns the task procIds to abort if the node's failure
   * ended the flow.
   */
  List<Long> taskFinished(FlowNode n, boolean success, String failure, long now) {
    if (n.state() != NodeState.RUNNING) {
      return List.of(); // a stale report
    }
    if (success) {
      n.setState(NodeState.SUCCESS, "");
      return List.of();
    }
    String why = "attempt " + n.attempts + " failed: " + failure;
    if (n.attempts <= n.spec.maxRetries()) {
      n.setState(NodeState.READY, why);
      n.retryAt = now + backoff(n.spec.backoffMillis(), n.attempts);
      return List.of();
    }
    switch (n.spec.failurePolicy()) {
      case SUSPEND:
        n.setState(NodeState.PENDING, why);
        n.pendingEpoch++;
        return List.of();
      case CONTINUE:
        n.setState(NodeState.ERROR, why);
        return List.of();
      case END_FLOW:
        n.setState(NodeState.ERROR, why);
        return endFlow(n);
      default:
        throw new IllegalStateException("unknown failure policy " + n.spec.failurePolicy());
    }
  }

  static long backoff(long initial, int attempt) {
    long shifted = initial << Math.min(Math.max(attempt - 1, 0), MAX_BACKOFF_SHIFT);
    long max = FlowRuntime.MAX_RETRY_BACKOFF.toMillis();
    return shifted < 0 ? max : Math.min(shifted, max);
  }

  private List<Long> endFlow(FlowNode by) {
    List<Long> abort = new ArrayList<>();
    String why = "flow ended by the failure of node '" + by.name() + "'";
    for (FlowNode n : g.nodes) {
      if (!n.state().isTerminal()) {
        if (n.state() == NodeState.RUNNING) {
          abort.add(n.taskProcId);
        }
        n.setState(NodeState.ERROR, why);
      }
    }
    g.detail = why;
    g.state = FlowState.FINISH;
    return abort;
  }

  boolean isEnded() {
    return !g.detail.isEmpty();
  }

  /**
   * An operator resumes a suspended node.
   *
   * @throws InvalidFlowException for an unknown node or one that is not (itself) PENDING
   */
  void resume(String name, ResumeAction action) {
    FlowNode n = g.byName.get(name);
    if (n == null) {
      throw new InvalidFlowException("the flow has no node '" + name + "'");
    }
    if (n.inheritedPending) {
      throw new InvalidFlowException(
          "node '" + name + "' is shown PENDING because it " + n.detail + "; resume that node");
    }
    if (n.state() != NodeState.PENDING) {
      throw new InvalidFlowException(
          "node '" + name + "' is " + n.state() + ", not PENDING; only a PENDING node resumes");
    }
    switch (action) {
      case RERUN:
        n.setState(NodeState.READY, "resumed by an operator: run again");
        n.attempts = 0;
        n.retryAt = 0;
        break;
      case MARK_SUCCEEDED:
        n.setState(NodeState.SUCCESS, "resumed by an operator: marked succeeded");
        break;
      case MARK_FAILED:
        n.setState(NodeState.ERROR, "resumed by an operator: marked failed");
        break;
      default:
        throw new IllegalStateException("unknown action " + action);
    }
  }

  /**
   * Adds nodes to a stream flow, unlinked (INIT).
   *
   * @throws InvalidFlowException if the stream ended or a name is taken; nothing is added
   */
  void append(List<NodeSpec> specs) {
    if (isEnded()) {
      throw new InvalidFlowException("stream flow " + g.scene + "/" + g.group + ": " + g.detail);
    }
    Set<String> names = new HashSet<>();
    for (NodeSpec s : specs) {
      if (g.byName.containsKey(s.name()) || !names.add(s.name())) {
        throw new InvalidFlowException(
            "stream flow " + g.scene + "/" + g.group + " already has a node '" + s.name() + "'");
      }
    }
    for (NodeSpec s : specs) {
      g.add(s, NodeState.INIT);
    }
  }

  /**
   * Links up to {@link #LINK_BATCH} appended nodes to the chain, in append order: each after the
   * current tail, or as the head of a new part when the tail has finished. Returns how many.
   */
  int linkBatch() {
    int first = 0;
    while (first < g.nodes.size() && g.nodes.get(first).state() != NodeState.INIT) {
      first++;
    }
    int end = Math.min(g.nodes.size(), first + LINK_BATCH);
    for (int i = first; i < end; i++) {
      FlowNode n = g.nodes.get(i);
      FlowNode tail = i == 0 ? null : g.nodes.get(i - 1);
      n.setState(NodeState.WAIT, "");
      if (tail != null && !tail.state().isTerminal()) {
        g.link(tail.index, n.index);
      }
    }
    return end - first;
  }

  boolean hasUnlinked() {
    return !g.nodes.isEmpty() && g.nodes.get(g.nodes.size() - 1).state() == NodeState.INIT;
  }

  /**
   * Evaluates the triggers of waiting nodes (in topological order, so a decision reaches the
   * descendants in one pass): they become READY, ERROR (can never trigger), stay WAIT, or are shown
   * PENDING while a suspended ancestor blocks them. Returns the READY nodes due by {@code now}.
   */
  List<FlowNode> evaluate(long now) {
    List<FlowNode> due = new ArrayList<>();
    for (FlowNode n : topologicalOrder()) {
      NodeState s = n.state();
      if (s == NodeState.PENDING && n.inheritedPending || s == NodeState.WAIT && mayDecide(n)) {
        decide(n);
      }
      if (n.state() == NodeState.READY && n.retryAt <= now) {
        due.add(n);
      }
    }
    return due;
  }

  /**
   * False when no parent finished or is PENDING: only a custom predicate can then change the node
   * (a long stream backlog is skipped this way).
   */
  private boolean mayDecide(FlowNode n) {
    if (n.parents.isEmpty() || n.spec.trigger().kind() == Trigger.Kind.CUSTOM) {
      return true;
    }
    for (int p : n.parents) {
      NodeState s = g.nodes.get(p).state();
      if (s.isTerminal() || s == NodeState.PENDING) {
        return true;
      }
    }
    return false;
  }

  private void decide(FlowNode n) {
    List<String> names = new ArrayList<>(n.parents.size());
    List<NodeState> states = new ArrayList<>(n.parents.size());
    String blockedBy = null;
    for (int p : n.parents) {
      FlowNode parent = g.nodes.get(p);
      names.add(parent.name());
      states.add(parent.state());
      if (blockedBy == null && parent.isSuspended()) {
        blockedBy = "waits for suspended node '" + parent.name() + "'";
      } else if (blockedBy == null && parent.inheritedPending) {
        blockedBy = parent.detail;
      }
    }
    switch (TriggerEvaluator.evaluate(n.spec.trigger(), names, states, predicates)) {
      case FIRE:
        n.setState(NodeState.READY, "triggered");
        n.retryAt = 0;
        break;
      case NEVER:
        n.setState(NodeState.ERROR, "never triggered: " + n.spec.trigger().kind() + " " + names);
        break;
      default:
        n.setInheritedPending(blockedBy != null, blockedBy);
    }
  }

  private List<FlowNode> topologicalOrder() {
    if (g.isStream()) {
      return g.nodes; // parents always come first in a chain
    }
    if (g.topologicalOrder == null) {
      g.topologicalOrder = computeTopologicalOrder();
    }
    return g.topologicalOrder;
  }

  private List<FlowNode> computeTopologicalOrder() {
    int[] missing = new int[g.nodes.size()];
    Deque<FlowNode> ready = new ArrayDeque<>();
    for (FlowNode n : g.nodes) {
      missing[n.index] = n.parents.size();
      if (missing[n.index] == 0) {
        ready.add(n);
      }
    }
    List<FlowNode> order = new ArrayList<>(g.nodes.size());
    while (!ready.isEmpty()) {
      FlowNode n = ready.poll();
      order.add(n);
      for (int c : n.children) {
        if (--missing[c] == 0) {
          ready.add(g.nodes.get(c));
        }
      }
    }
    return order;
  }

  /** The flow's state from its nodes. */
  FlowState computeState() {
    if (isEnded()) {
      return FlowState.FINISH;
    }
    boolean active = false;
    boolean pending = false;
    boolean allTerminal = true;
    for (FlowNode n : g.nodes) {
      NodeState s = n.state();
      active |= s == NodeState.READY || s == NodeState.RUNNING;
      pending |= s == NodeState.PENDING;
      allTerminal &= s.isTerminal();
    }
    if (allTerminal) {
      return FlowState.FINISH;
    }
    return active || !pending ? FlowState.RUNNING : FlowState.PENDING;
  }

  /** Whether a node is READY (maybe waiting for a retry) or RUNNING. */
  boolean hasActiveNodes() {
    for (FlowNode n : g.nodes) {
      if (n.state() == NodeState.READY || n.state() == NodeState.RUNNING) {
        return true;
      }
    }
    return false;
  }

  /** The earliest retry time after {@code now} among READY nodes, or Long.MAX_VALUE. */
  long nextRetryAt(long now) {
    long next = Long.MAX_VALUE;
    for (FlowNode n : g.nodes) {
      if (n.state() == NodeState.READY && n.retryAt > now) {
        next = Math.min(next, n.retryAt);
      }
    }
    return next;
  }
}
