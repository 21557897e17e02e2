package dev.baton.procedure.flow;

import dev.baton.procedure.BoundedReads;
import dev.baton.procedure.store.RecordParts;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The durable state of a flow: its nodes with their states, a stream's folded prefix ({@link
 * StreamSummary}), and the operator commands it has applied (with their outcomes, until the command
 * procedures finished). Encoded once per record, as the flow procedure's result (its head, {@link
 * #encodeHead}) and the record's parts (its node chunks and folded names, {@link #takeParts}), so
 * any node of a cluster can show a flow. What is derived from the nodes to make a step cheap is in
 * {@link FlowIndex}; the encoding is kept per chunk of nodes ({@link NodeChunks}).
 */
final class FlowGraph {
  /** The fewest bytes {@link java.io.DataOutputStream#writeUTF} writes (its length prefix). */
  static final int MIN_UTF_BYTES = 2;

  /**
   * The fewest bytes a written node takes: its spec, parent count, state and pending flag, attempts
   * and pending epoch, task id and retry time, detail.
   */
  static final int MIN_NODE_BYTES =
      NodeSpecCodec.MIN_SPEC_BYTES
          + 3 * Integer.BYTES
          + 2 * Byte.BYTES
          + 2 * Long.BYTES
          + MIN_UTF_BYTES;

  /** The fewest bytes an applied command takes: its id and name. */
  static final int MIN_COMMAND_BYTES = Long.BYTES + MIN_UTF_BYTES;

  /** The format of a graph without folded nodes (every finite flow). */
  private static final int FORMAT_VERSION = 1;

  /**
   * The format of a stream graph with a folded prefix: a {@link StreamSummary} before the nodes.
   */
  private static final int FORMAT_FOLDED = 2;

  /**
   * The format of a graph whose head ({@link #encodeHead}) is a record's result and whose folded
   * names and node chunks are the record's parts ({@link GraphParts}): read as the head followed by
   * the parts. The head holds the kind, state, scene, group, detail, the applied commands, the
   * number of kept nodes and the summary's counts; the names and the nodes follow.
   */
  private static final int FORMAT_PARTS = 3;

  private final FlowInfo.Kind kind;
  private final String scene;
  private final String group;
  private FlowState state = FlowState.INIT;
  private String detail = "";

  /** The nodes not folded into the summary: node {@code i} is at {@code i - folded()}. */
  private final List<FlowNode> nodes = new ArrayList<>();

  private final List<FlowNode> nodesView = Collections.unmodifiableList(nodes);

  /** Streams: the folded prefix. */
  private StreamSummary summary = new StreamSummary();

  private final Map<String, FlowNode> byName = new HashMap<>();

  /** Applied command procId → outcome ("" for success, else the refusal). */
  private final Map<Long, String> appliedCommands = new LinkedHashMap<>();

  private final Map<Long, String> appliedCommandsView =
      Collections.unmodifiableMap(appliedCommands);

  /** Derived from the nodes, kept up to date by them. */
  private final FlowIndex index = new FlowIndex(this);

  private final NodeChunks chunks = new NodeChunks();

  private final GraphParts parts = new GraphParts();

  FlowGraph(FlowInfo.Kind kind, String scene, String group) {
    this.kind = kind;
    this.scene = scene;
    this.group = group;
  }

  /** A finite flow's graph from a validated definition; every node WAITs. */
  static FlowGraph of(FlowDefinition def) {
    FlowGraph g = new FlowGraph(FlowInfo.Kind.FINITE, "", "");
    for (NodeSpec spec : def.nodes()) {
      g.add(spec, NodeState.WAIT);
    }
    for (FlowDefinition.Edge e : def.edges()) {
      g.link(g.byName.get(e.parent()).index(), g.byName.get(e.child()).index());
    }
    return g;
  }

  FlowNode add(NodeSpec spec, NodeState initial) {
    FlowNode n = new FlowNode(index, size(), spec, initial);
    nodes.add(n);
    byName.put(spec.name(), n);
    index.added(n);
    encodingChanged(n.index());
    return n;
  }

  void link(int parent, int child) {
    node(child).addParent(parent);
    node(parent).addChild(child);
    index.linked(node(parent), node(child));
    chunks.changed(child - folded());
  }

  /** Read back: {@code child} (finished, as folding requires) names a folded parent. */
  private void linkFolded(int parent, int child) throws IOException {
    FlowNode n = node(child);
    if (!n.state().isTerminal()) {
      throw new IOException(
          "node '" + n.name() + "' is " + n.state() + " but its parent " + parent + " is folded");
    }
    n.addParent(parent);
    chunks.changed(child - folded());
  }

  /** The node at {@code index} (not folded). */
  FlowNode node(int index) {
    return nodes.get(index - folded());
  }

  /** The kept (not folded) node named {@code name}, or null. */
  FlowNode named(String name) {
    return byName.get(name);
  }

  /**
   * The kept (not folded) nodes in index order: the one at slot {@code i} is node {@code i +
   * folded()} (read-only, live).
   */
  List<FlowNode> nodes() {
    return nodesView;
  }

  /** Nodes ever added, folded ones included. */
  int size() {
    return folded() + nodes.size();
  }

  /** Nodes folded into the summary (a finished prefix of a stream). */
  int folded() {
    return summary.nodes();
  }

  StreamSummary summary() {
    return summary;
  }

  /**
   * Folds the first {@code count} kept nodes into the summary (they must be finished, and so must
   * the node after them, so no kept node still needs them).
   */
  void fold(int count) {
    if (count % NodeChunks.CHUNK != 0 || count >= nodes.size()) {
      throw new IllegalArgumentException(
          "folds whole chunks before the last node: " + count + " of " + nodes.size());
    }
    List<FlowNode> prefix = nodes.subList(0, count);
    for (FlowNode n : prefix) {
      summary.fold(n);
      byName.remove(n.name());
      index.removed(n);
    }
    prefix.clear();
    parts.folded(
        folded() / NodeChunks.CHUNK - count / NodeChunks.CHUNK, count / NodeChunks.CHUNK, summary);
    chunks.dropFirst(count / NodeChunks.CHUNK);
    index.shift(count);
  }

  /** A node's encoded fields may have changed. */
  void encodingChanged(int index) {
    chunks.changed(index - folded());
  }

  boolean isStream() {
    return kind == FlowInfo.Kind.STREAM;
  }

  /** Stream flows: the scene appends name it by, else "". */
  String scene() {
    return scene;
  }

  /** Stream flows: the group appends name it by, else "". */
  String group() {
    return group;
  }

  /** Stream flows: "scene/group", as messages name the stream. */
  String streamName() {
    return scene + "/" + group;
  }

  FlowState state() {
    return state;
  }

  /** The flow's state as computed from its nodes by a step. */
  void recordState(FlowState computed) {
    state = computed;
  }

  /** Why the flow ended early (a node's END_FLOW failure), else "". */
  String detail() {
    return detail;
  }

  /** Whether a node's failure ended the flow early. */
  boolean isEnded() {
    return !detail.isEmpty();
  }

  /** A node's failure ends the flow: FINISH, for {@code why}. */
  void end(String why) {
    detail = why;
    state = FlowState.FINISH;
  }

  FlowIndex index() {
    return index;
  }

  /**
   * Applied commands not yet forgotten, in applying order: procId → outcome ("" for success, else
   * the refusal). Read-only, live.
   */
  Map<Long, String> appliedCommands() {
    return appliedCommandsView;
  }

  /** The command procedure {@code commandId} was applied with {@code outcome}. */
  void commandApplied(long commandId, String outcome) {
    appliedCommands.put(commandId, outcome);
  }

  /** The command procedure {@code commandId} finished (or is gone): its outcome is not kept. */
  void forgetCommand(long commandId) {
    appliedCommands.remove(commandId);
  }

  FlowInfo toInfo(long flowId) {
    List<FlowInfo.NodeInfo> infos = new ArrayList<>(nodes.size());
    for (FlowNode n : nodes) {
      List<String> parents = new ArrayList<>(n.parents().size());
      for (int p : n.parents()) {
        parents.add(p < folded() ? summary.lastName() : node(p).name());
      }
      infos.add(
          new FlowInfo.NodeInfo(
              n.name(),
              n.spec().taskType(),
              n.state(),
              parents,
              n.attempts(),
              n.taskProcId(),
              n.detail(),
              n.pendingEpoch()));
    }
    return new FlowInfo(
        flowId,
        kind,
        scene,
        group,
        state,
        detail,
        infos,
        new FlowInfo.Folded(summary.nodes(), summary.succeeded(), summary.failed()));
  }

  // ------------------------------------------------------------------ encoding

  /**
   * The graph's bytes. Re-encodes only the chunks of nodes that changed since the last call and
   * copies the others into an array of the exact size.
   */
  byte[] encode() throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(head);
    out.writeInt(folded() == 0 ? FORMAT_VERSION : FORMAT_FOLDED);
    out.writeByte(kind.ordinal());
    out.writeByte(state.ordinal());
    out.writeUTF(scene);
    out.writeUTF(group);
    out.writeUTF(detail);
    if (folded() > 0) {
      summary.writeCounts(out);
    }
    out.flush();
    int names = folded() > 0 ? summary.namesBytes() : 0;
    ByteArrayOutputStream tail = new ByteArrayOutputStream();
    out = new DataOutputStream(tail);
    out.writeInt(appliedCommands.size());
    for (Map.Entry<Long, String> c : appliedCommands.entrySet()) {
      out.writeLong(c.getKey());
      out.writeUTF(c.getValue());
    }
    out.flush();
    List<byte[]> body = chunks.encoded(nodes, FlowNode::encoding);
    int size = head.size() + names + Integer.BYTES + tail.size();
    for (byte[] c : body) {
      size += c.length;
    }
    byte[] all = new byte[size];
    int at = copy(head.toByteArray(), all, 0);
    summary.writeNames(all, at);
    at += names;
    at = copy(ByteBuffer.allocate(Integer.BYTES).putInt(nodes.size()).array(), all, at);
    for (byte[] c : body) {
      at = copy(c, all, at);
    }
    copy(tail.toByteArray(), all, at);
    return all;
  }

  /**
   * The head of the graph in the parts format: what the record's result holds while the names and
   * nodes are its parts ({@link #takeParts}). Its size does not grow with the nodes.
   */
  byte[] encodeHead() throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(head);
    out.writeInt(FORMAT_PARTS);
    out.writeByte(kind.ordinal());
    out.writeByte(state.ordinal());
    out.writeUTF(scene);
    out.writeUTF(group);
    out.writeUTF(detail);
    out.writeInt(appliedCommands.size());
    for (Map.Entry<Long, String> c : appliedCommands.entrySet()) {
      out.writeLong(c.getKey());
      out.writeUTF(c.getValue());
    }
    out.writeInt(nodes.size());
    summary.writeCounts(out);
    out.flush();
    return head.toByteArray();
  }

  /**
   * The parts that changed since the last call (or since the graph was made or read back): node
   * chunks encoded afresh, chunks folded away, names of folded chunks.
   */
  RecordParts takeParts() throws IOException {
    List<byte[]> body = chunks.encoded(nodes, FlowNode::encoding);
    return parts.take(folded() / NodeChunks.CHUNK, body, chunks.takeReencoded());
  }

  private static int copy(byte[] from, byte[] to, int at) {
    System.arraycopy(from, 0, to, at, from.length);
    return at + from.length;
  }

  /**
   * @throws IOException for bytes this class did not write (named in the message)
   */
  static FlowGraph decode(byte[] data) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
    int version = in.readInt();
    if (version != FORMAT_VERSION && version != FORMAT_FOLDED && version != FORMAT_PARTS) {
      throw new IOException(
          "unknown flow state format "
              + version
              + ", expected "
              + FORMAT_VERSION
              + ", "
              + FORMAT_FOLDED
              + " or "
              + FORMAT_PARTS);
    }
    FlowInfo.Kind kind = FlowInfo.Kind.values()[in.readByte()];
    FlowState state = FlowState.values()[in.readByte()];
    FlowGraph g = new FlowGraph(kind, in.readUTF(), in.readUTF());
    g.state = state;
    g.detail = in.readUTF();
    int count;
    if (version == FORMAT_PARTS) {
      readCommands(in, g);
      count = BoundedReads.readCount(in, MIN_NODE_BYTES, "flow nodes");
      g.summary = StreamSummary.read(in);
      if (g.summary.nodes() > 0 && !g.isStream()) {
        throw new IOException("a finite flow's state holds folded nodes");
      }
    } else {
      if (version == FORMAT_FOLDED) {
        if (!g.isStream()) {
          throw new IOException("a finite flow's state holds folded nodes");
        }
        g.summary = StreamSummary.read(in);
      }
      count = BoundedReads.readCount(in, MIN_NODE_BYTES, "flow nodes");
    }
    List<List<Integer>> parents = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      parents.add(readNode(in, g));
    }
    int base = g.folded();
    for (int i = 0; i < count; i++) {
      for (int p : parents.get(i)) {
        if (p < 0 || p >= base + count) {
          throw new IOException(
              "node " + (base + i) + " of the flow state names parent " + p + " of " + count);
        }
        if (p < base) {
          g.linkFolded(p, base + i);
        } else {
          g.link(p, base + i);
        }
      }
    }
    if (version != FORMAT_PARTS) {
      readCommands(in, g);
    }
    g.parts.readBack(
        base / NodeChunks.CHUNK, (count + NodeChunks.CHUNK - 1) / NodeChunks.CHUNK, g.summary);
    return g;
  }

  private static void readCommands(DataInputStream in, FlowGraph g) throws IOException {
    int commands = BoundedReads.readCount(in, MIN_COMMAND_BYTES, "applied commands");
    for (int i = 0; i < commands; i++) {
      g.appliedCommands.put(in.readLong(), in.readUTF());
    }
  }

  private static List<Integer> readNode(DataInputStream in, FlowGraph g) throws IOException {
    NodeSpec spec = NodeSpecCodec.read(in);
    int parents = BoundedReads.readCount(in, Integer.BYTES, "node parents");
    List<Integer> ps = new ArrayList<>(parents);
    for (int i = 0; i < parents; i++) {
      ps.add(in.readInt());
    }
    g.add(spec, NodeState.values()[in.readByte()]).readRecorded(in);
    return ps;
  }
}
