package dev.baton.procedure.flow;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The live, mutable state of one node inside a {@link FlowGraph}. Changed only by the flow
 * procedure's step (one worker at a time). SUCCESS and ERROR never change once reached.
 */
final class FlowNode {
  /** Stream only: linked as the head of a new part (its predecessor had finished). */
  static final int NO_PARENT = -1;

  /** Bytes reserved for a node's encoding (grows as needed). */
  private static final int ENCODING_BYTES_GUESS = 48;

  private final FlowIndex owner;
  private final int index;
  private final NodeSpec spec;
  private final List<Integer> parents = new ArrayList<>();
  private final List<Integer> children = new ArrayList<>();
  private final List<Integer> parentsView = Collections.unmodifiableList(parents);
  private final List<Integer> childrenView = Collections.unmodifiableList(children);
  private NodeState state;
  private int attempts;
  private long taskProcId;
  private long retryAt;
  private String detail = "";

  /** Counts the times this node was suspended; a resume names the episode it ends. */
  private int pendingEpoch;

  /** PENDING only because an ancestor is suspended (not resumable itself). */
  private boolean inheritedPending;

  /** Derived, not persisted: parents that are SUCCESS, ERROR and PENDING (kept by the index). */
  private int parentsSucceeded;

  private int parentsFailed;
  private int parentsPending;

  /** The spec's encoded form (a spec never changes), made on first use. */
  private byte[] specEncoding;

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

  /** The node's place in its flow, counting folded nodes: a parent or child names it by this. */
  int index() {
    return index;
  }

  NodeSpec spec() {
    return spec;
  }

  /** The indexes of its parents, in linking order (read-only, live). */
  List<Integer> parents() {
    return parentsView;
  }

  /** The indexes of its children, in linking order (read-only, live). */
  List<Integer> children() {
    return childrenView;
  }

  void addParent(int parent) {
    parents.add(parent);
  }

  void addChild(int child) {
    children.add(child);
  }

  /** Task attempts started since the node was created or last run again by an operator. */
  int attempts() {
    return attempts;
  }

  /** The procedure of the latest attempt, 0 if none. */
  long taskProcId() {
    return taskProcId;
  }

  /** A READY node's task starts no earlier than this (epoch millis; 0: at once). */
  long retryAt() {
    return retryAt;
  }

  /** Why the node is in its state (a failure, "never triggered", an operator action), or "". */
  String detail() {
    return detail;
  }

  /** How often the node was suspended; a resume names the suspension it ends. */
  int pendingEpoch() {
    return pendingEpoch;
  }

  /** Whether it is PENDING only because an ancestor is suspended (not resumable itself). */
  boolean isInheritedPending() {
    return inheritedPending;
  }

  /** Starts a task attempt: counts it and makes the node RUNNING. Returns the attempt's number. */
  int startAttempt() {
    attempts++;
    setState(NodeState.RUNNING, "");
    return attempts;
  }

  /** The task of the current attempt was submitted as procedure {@code procId}. */
  void taskSubmitted(long procId) {
    taskProcId = procId;
  }

  /** READY, due at once. */
  void makeReady(String why) {
    setState(NodeState.READY, why);
    retryAt = 0;
  }

  /** READY again after a failed attempt, due at {@code at} (epoch millis). */
  void scheduleRetry(String why, long at) {
    setState(NodeState.READY, why);
    retryAt = at;
  }

  /** An operator runs the node again: READY at once, with its attempts counted from zero. */
  void rerun(String why) {
    setState(NodeState.READY, why);
    attempts = 0;
    retryAt = 0;
  }

  /** PENDING until an operator resumes it: a new suspension. */
  void suspend(String why) {
    setState(NodeState.PENDING, why);
    pendingEpoch++;
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
  private byte[] cachedEncoding() {
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

  private void cacheEncoding(byte[] bytes) {
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

  /**
   * The node's bytes in a graph's record: its spec, parents, state, pending flag, attempts, task
   * id, retry time, pending epoch and detail. Kept until one of them changes; the spec's bytes are
   * kept for good.
   */
  byte[] encoding() throws IOException {
    byte[] e = cachedEncoding();
    if (e == null) {
      e = encode();
      cacheEncoding(e);
    }
    return e;
  }

  private byte[] encode() throws IOException {
    if (specEncoding == null) {
      ByteArrayOutputStream specBytes = new ByteArrayOutputStream(ENCODING_BYTES_GUESS);
      DataOutputStream specOut = new DataOutputStream(specBytes);
      NodeSpecCodec.write(specOut, spec);
      specOut.flush();
      specEncoding = specBytes.toByteArray();
    }
    ByteArrayOutputStream bytes =
        new ByteArrayOutputStream(specEncoding.length + ENCODING_BYTES_GUESS);
    DataOutputStream out = new DataOutputStream(bytes);
    out.write(specEncoding);
    out.writeInt(parents.size());
    for (int p : parents) {
      out.writeInt(p);
    }
    out.writeByte(state.ordinal());
    out.writeBoolean(inheritedPending);
    out.writeInt(attempts);
    out.writeLong(taskProcId);
    out.writeLong(retryAt);
    out.writeInt(pendingEpoch);
    out.writeUTF(detail);
    out.flush();
    return bytes.toByteArray();
  }

  /**
   * Reads back what {@link #encode} wrote after the state (the graph reads the spec, parents and
   * state to create the node).
   */
  void readRecorded(DataInputStream in) throws IOException {
    inheritedPending = in.readBoolean();
    attempts = in.readInt();
    taskProcId = in.readLong();
    retryAt = in.readLong();
    pendingEpoch = in.readInt();
    detail = in.readUTF();
  }
}
