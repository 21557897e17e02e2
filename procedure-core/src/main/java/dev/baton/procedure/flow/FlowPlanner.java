package dev.baton.procedure.flow;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
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
    String why = "attempt " + n.attempts() + " failed: " + failure;
    if (n.attempts() <= n.spec().maxRetries()) {
      n.scheduleRetry(why, now + backoff(n.spec().backoffMillis(), n.attempts()));
      return List.of();
    }
    switch (n.spec().failurePolicy()) {
      case SUSPEND:
        n.suspend(why);
        return List.of();
      case CONTINUE:
        n.setState(NodeState.ERROR, why);
        return List.of();
      case END_FLOW:
        n.setState(NodeState.ERROR, why);
        return endFlow(n);
      default:
        throw new IllegalStateException("unknown failure policy " + n.spec().failurePolicy());
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
    for (FlowNode n : g.nodes()) {
      if (!n.state().isTerminal()) {
        if (n.state() == NodeState.RUNNING) {
          abort.add(n.taskProcId());
        }
        n.setState(NodeState.ERROR, why);
      }
    }
    g.end(why);
    return abort;
  }

  boolean isEnded() {
    return g.isEnded();
  }

  /** Computes the flow's state from its nodes ({@link #computeState}) and records it. */
  void updateState() {
    g.recordState(computeState());
  }

  /**
   * An operator resumes a suspended node.
   *
   * @throws InvalidFlowException for an unknown node or one that is not (itself) PENDING
   */
  void resume(String name, ResumeAction action) {
    FlowNode n = g.named(name);
    if (n == null && g.summary().mayHaveHad(name)) {
      throw new InvalidFlowException(
          "node '" + name + "' finished and was folded into the stream's summary; not PENDING");
    }
    if (n == null) {
      throw new InvalidFlowException("the flow has no node '" + name + "'");
    }
    if (n.isInheritedPending()) {
      throw new InvalidFlowException(
          "node '" + name + "' is shown PENDING because it " + n.detail() + "; resume that node");
    }
    if (n.state() != NodeState.PENDING) {
      throw new InvalidFlowException(
          "node '" + name + "' is " + n.state() + ", not PENDING; only a PENDING node resumes");
    }
    switch (action) {
      case RERUN:
        n.rerun("resumed by an operator: run again");
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
      throw new InvalidFlowException("stream flow " + g.streamName() + ": " + g.detail());
    }
    Set<String> names = new HashSet<>();
    for (NodeSpec s : specs) {
      if (g.summary().mayHaveHad(s.name())) {
        throw new InvalidFlowException(
            "stream flow "
                + g.streamName()
                + " already had a node '"
                + s.name()
                + "' (finished and folded into the stream's summary); names stay taken");
      }
      if (g.named(s.name()) != null || !names.add(s.name())) {
        throw new InvalidFlowException(
            "stream flow " + g.streamName() + " already has a node '" + s.name() + "'");
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
    int first = firstUnlinked();
    int end = Math.min(g.size(), first + LINK_BATCH);
    for (int i = first; i < end; i++) {
      FlowNode n = g.node(i);
      FlowNode tail = i == 0 ? null : g.node(i - 1);
      n.setState(NodeState.WAIT, "");
      if (tail != null && !tail.state().isTerminal()) {
        g.link(tail.index(), n.index());
      }
    }
    return end - first;
  }

  /** Appended nodes are INIT until linked, and linked in append order: they end the list. */
  private int firstUnlinked() {
    return g.size() - g.index().count(NodeState.INIT);
  }

  boolean hasUnlinked() {
    return g.index().count(NodeState.INIT) > 0;
  }

  /**
   * Evaluates the triggers of the waiting nodes whose parents changed since the last evaluation
   * (every node in the first evaluation of a graph, and the custom-trigger nodes whenever anything
   * changed), in topological order, so a decision reaches the descendants in one pass: they become
   * READY, ERROR (can never trigger), stay WAIT, or are shown PENDING while a suspended ancestor
   * blocks them. Returns the READY nodes due by {@code now}, in topological order.
   */
  List<FlowNode> evaluate(long now) {
    List<FlowNode> order = g.index().topologicalOrder();
    BitSet candidates = g.index().candidates();
    for (int pos = candidates.nextSetBit(0); pos >= 0; pos = candidates.nextSetBit(pos + 1)) {
      candidates.clear(pos);
      FlowNode n = order == null ? g.nodes().get(pos) : order.get(pos);
      NodeState s = n.state();
      if (s == NodeState.PENDING && n.isInheritedPending() || s == NodeState.WAIT && mayDecide(n)) {
        decide(n);
      }
    }
    g.index().evaluated();
    List<FlowNode> due = new ArrayList<>();
    BitSet ready = g.index().ready();
    for (int i = ready.nextSetBit(0); i >= 0; i = ready.nextSetBit(i + 1)) {
      FlowNode n = g.nodes().get(i);
      if (n.retryAt() <= now) {
        due.add(n);
      }
    }
    if (order != null) {
      due.sort(Comparator.comparingInt(n -> g.index().position(n.index())));
    }
    return due;
  }

  /**
   * False when no parent finished or is PENDING: only a custom predicate can then change the node
   * (a long stream backlog is skipped this way).
   */
  private static boolean mayDecide(FlowNode n) {
    return n.parents().isEmpty()
        || n.spec().trigger().kind() == Trigger.Kind.CUSTOM
        || n.parentsSucceeded() + n.parentsFailed() + n.parentsPending() > 0;
  }

  private void decide(FlowNode n) {
    TriggerEvaluator.Decision d;
    Trigger.Kind kind = n.spec().trigger().kind();
    if (kind == Trigger.Kind.NAMED || kind == Trigger.Kind.CUSTOM) {
      List<String> names = new ArrayList<>(n.parents().size());
      List<NodeState> states = new ArrayList<>(n.parents().size());
      for (int p : n.parents()) {
        names.add(g.node(p).name());
        states.add(g.node(p).state());
      }
      d = TriggerEvaluator.evaluate(n.spec().trigger(), names, states, predicates);
    } else {
      d =
          TriggerEvaluator.evaluate(
              n.spec().trigger(), n.parents().size(), n.parentsSucceeded(), n.parentsFailed());
    }
    switch (d) {
      case FIRE:
        n.makeReady("triggered");
        break;
      case NEVER:
        n.setState(NodeState.ERROR, "never triggered: " + kind + " " + parentNames(n));
        break;
      default:
        String blockedBy = n.parentsPending() == 0 ? null : blockedBy(n);
        n.setInheritedPending(blockedBy != null, blockedBy);
    }
  }

  private List<String> parentNames(FlowNode n) {
    List<String> names = new ArrayList<>(n.parents().size());
    for (int p : n.parents()) {
      names.add(g.node(p).name());
    }
    return names;
  }

  /** Why a waiting node is shown PENDING: its first suspended (or so shown) parent, else null. */
  private String blockedBy(FlowNode n) {
    for (int p : n.parents()) {
      FlowNode parent = g.node(p);
      if (parent.isSuspended()) {
        return "waits for suspended node '" + parent.name() + "'";
      } else if (parent.isInheritedPending()) {
        return parent.detail();
      }
    }
    return null;
  }

  /**
   * Streams: folds the finished prefix into the summary, in whole chunks of {@value
   * NodeChunks#CHUNK} nodes, keeping the last {@code keep} finished nodes of the prefix listed and
   * folding only nodes followed by a finished node (a node needs its parent only until it finished,
   * so no kept node needs a folded one). Returns how many nodes were folded.
   */
  int foldFinishedPrefix(int keep) {
    if (!g.isStream()) {
      return 0;
    }
    int fold = 0;
    while (fold + NodeChunks.CHUNK + keep < g.nodes().size()
        && finished(fold, fold + NodeChunks.CHUNK + keep)) {
      fold += NodeChunks.CHUNK;
    }
    if (fold > 0) {
      g.fold(fold);
    }
    return fold;
  }

  /**
   * Whether the kept nodes from slot {@code from} to slot {@code to} (inclusive) finished. Looks
   * from the end: in a stream the unfinished nodes follow the finished ones, so a range that cannot
   * be folded is told after a few nodes, not after the {@code keep} finished ones before them.
   */
  private boolean finished(int from, int to) {
    for (int i = to; i >= from; i--) {
      if (!g.nodes().get(i).state().isTerminal()) {
        return false;
      }
    }
    return true;
  }

  /** The flow's state from its nodes. */
  FlowState computeState() {
    if (isEnded()) {
      return FlowState.FINISH;
    }
    FlowIndex ix = g.index();
    if (ix.count(NodeState.SUCCESS) + ix.count(NodeState.ERROR) == g.nodes().size()) {
      return FlowState.FINISH;
    }
    return hasActiveNodes() || ix.count(NodeState.PENDING) == 0
        ? FlowState.RUNNING
        : FlowState.PENDING;
  }

  /** Whether a node is READY (maybe waiting for a retry) or RUNNING. */
  boolean hasActiveNodes() {
    return g.index().count(NodeState.READY) + g.index().count(NodeState.RUNNING) > 0;
  }

  /** The earliest retry time after {@code now} among READY nodes, or Long.MAX_VALUE. */
  long nextRetryAt(long now) {
    long next = Long.MAX_VALUE;
    BitSet ready = g.index().ready();
    for (int i = ready.nextSetBit(0); i >= 0; i = ready.nextSetBit(i + 1)) {
      long at = g.nodes().get(i).retryAt();
      if (at > now) {
        next = Math.min(next, at);
      }
    }
    return next;
  }
}
