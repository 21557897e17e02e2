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

  FlowNode(int index, NodeSpec spec, NodeState state) {
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
    state = next;
    detail = why == null ? "" : why;
    inheritedPending = false;
  }

  /** Shows a waiting node PENDING because of a suspended ancestor, or back to WAIT. */
  void setInheritedPending(boolean pending, String why) {
    state = pending ? NodeState.PENDING : NodeState.WAIT;
    inheritedPending = pending;
    detail = pending ? why : "";
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
