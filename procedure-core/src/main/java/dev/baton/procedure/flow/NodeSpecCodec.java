package dev.baton.procedure.flow;

import dev.baton.procedure.BoundedReads;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The binary form of a {@link NodeSpec}, as a flow's record ({@link FlowGraph}) and an append
 * command's record ({@link FlowCommandProcedure}) hold it.
 */
final class NodeSpecCodec {
  /**
   * The fewest bytes a written {@link NodeSpec} takes: name, type and trigger predicate (strings),
   * argument and trigger counts, trigger count, retries (ints), trigger kind and policy (bytes),
   * backoff (a long).
   */
  static final int MIN_SPEC_BYTES =
      3 * FlowGraph.MIN_UTF_BYTES + 4 * Integer.BYTES + 2 * Byte.BYTES + Long.BYTES;

  /** The fewest bytes one argument takes: its name and value. */
  private static final int MIN_ARG_BYTES = 2 * FlowGraph.MIN_UTF_BYTES;

  private NodeSpecCodec() {}

  /** Writes {@code s}: arguments and trigger parents sorted, so equal specs write equal bytes. */
  static void write(DataOutputStream out, NodeSpec s) throws IOException {
    out.writeUTF(s.name());
    out.writeUTF(s.taskType());
    out.writeInt(s.args().size());
    for (Map.Entry<String, String> a : new TreeMap<>(s.args()).entrySet()) {
      out.writeUTF(a.getKey());
      out.writeUTF(a.getValue());
    }
    Trigger t = s.trigger();
    out.writeByte(t.kind().ordinal());
    out.writeInt(t.count());
    out.writeInt(t.parents().size());
    for (String p : new TreeSet<>(t.parents())) {
      out.writeUTF(p);
    }
    out.writeUTF(t.predicateId());
    out.writeByte(s.failurePolicy().ordinal());
    out.writeInt(s.maxRetries());
    out.writeLong(s.backoffMillis());
  }

  /**
   * Reads what {@link #write} wrote.
   *
   * @throws IOException for counts the remaining bytes cannot hold
   */
  static NodeSpec read(DataInputStream in) throws IOException {
    String name = in.readUTF();
    String type = in.readUTF();
    int argc = BoundedReads.readCount(in, MIN_ARG_BYTES, "node arguments");
    Map<String, String> args = new HashMap<>();
    for (int i = 0; i < argc; i++) {
      args.put(in.readUTF(), in.readUTF());
    }
    Trigger.Kind tk = Trigger.Kind.values()[in.readByte()];
    int count = in.readInt();
    int named = BoundedReads.readCount(in, FlowGraph.MIN_UTF_BYTES, "trigger parents");
    Set<String> names = new TreeSet<>();
    for (int i = 0; i < named; i++) {
      names.add(in.readUTF());
    }
    Trigger trigger = new Trigger(tk, count, names, in.readUTF());
    FailurePolicy policy = FailurePolicy.values()[in.readByte()];
    return new NodeSpec(name, type, args, trigger, policy, in.readInt(), in.readLong());
  }
}
