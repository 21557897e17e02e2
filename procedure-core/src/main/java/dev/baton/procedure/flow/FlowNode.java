package dev.baton.procedure.flow;

import java.util.ArrayList;
import java.util.List;

/**
 * The live, mutable state of one node inside a {@link FlowGraph}. Changed only by the flow
 * procedure's step (one worker at a time). SUCCESS and ERROR never change once reached.
 */
final class FlowNode {
  /** Stream only: linked as the head of a new part (its predecessor had finished). */
  static final int NO_PARENT = -1;

  private final FlowIndex owner;
  final int index;
  final NodeSpec spec;
  final List<Integer> parents = new ArrayList<>();
  final List<Integer> children = new ArrayList<>();
  private NodeState state;
  int attempts;
  long taskProcId;
  long retryAt;
  String detail = "";

  /** Counts the times this node was suspended; a resume names the episode it ends. */
  int pendingEpoch;

  /** PENDING only because an ancestor is suspended (not resumable itself). */
  boolean inheritedPending;

  /** Derived, not persisted: parents that are SUCCESS, ERROR and PENDING (kept by the index). */
  private int parentsSucceeded;

  private int parentsFailed;
  private int parentsPending;

  /** Encoded form, valid while the fields it was made from are unchanged. */
  private byte[] encoded;

  private NodeState encState;
  private boolean encInherited;
  private int encAttempts;
  private long encTaskProcId;
  private long encRetryAt;
  private int encEpoch;
  private String encDetail;
  private int encParents;

  FlowNode(FlowIndex owner, int index, NodeSpec spec, NodeState state) {
    this.owner = owner;
    this.index = index;
    this.spec = spec;
    this.state = state;
  }

  NodeState state() {
    return state;
  }

  String name() {
    return spec.name();
  }

  /** Moves to {@code next}; a terminal node never changes (an invariant, checked). */
  void setState(NodeState next, String why) {
    if (state.isTerminal() && next != state) {
      throw new IllegalStateException(
          "node '" + name() + "' is " + state + " (terminal) and cannot become " + next);
    }
    NodeState before = state;
    state = next;
    detail = why == null ? "" : why;
    inheritedPending = false;
    owner.changed(this, before);
  }

  /** Shows a waiting node PENDING because of a suspended ancestor, or back to WAIT. */
  void setInheritedPending(boolean pending, String why) {
    NodeState before = state;
    String beforeDetail = detail;
    state = pending ? NodeState.PENDING : NodeState.WAIT;
    inheritedPending = pending;
    detail = pending ? why : "";
    if (before != state || !beforeDetail.equals(detail)) {
      owner.changed(this, before);
    }
  }

  /** A parent in state {@code s} was added ({@code delta} 1) or left that state (-1). */
  void countParent(NodeState s, int delta) {
    if (s == NodeState.SUCCESS) {
      parentsSucceeded += delta;
    } else if (s == NodeState.ERROR) {
      parentsFailed += delta;
    } else if (s == NodeState.PENDING) {
      parentsPending += delta;
    }
  }

  int parentsSucceeded() {
    return parentsSucceeded;
  }

  int parentsFailed() {
    return parentsFailed;
  }

  int parentsPending() {
    return parentsPending;
  }

  /** The cached encoding if no mutable field changed since it was made, else null. */
  byte[] cachedEncoding() {
    boolean same =
        encoded != null
            && encState == state
            && encInherited == inheritedPending
            && encAttempts == attempts
            && encTaskProcId == taskProcId
            && encRetryAt == retryAt
            && encEpoch == pendingEpoch
            && encDetail.equals(detail)
            && encParents == parents.size();
    return same ? encoded : null;
  }

  void cacheEncoding(byte[] bytes) {
    encoded = bytes;
    encState = state;
    encInherited = inheritedPending;
    encAttempts = attempts;
    encTaskProcId = taskProcId;
    encRetryAt = retryAt;
    encEpoch = pendingEpoch;
    encDetail = detail;
    encParents = parents.size();
  }

  boolean isSuspended() {
    return state == NodeState.PENDING && !inheritedPending;
  }
}
