package dev.baton.procedure.flow;

import dev.baton.procedure.BoundedReads;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * The finished prefix of a stream flow, folded: how many nodes it held and how many of them
 * succeeded or failed, the name of its last node (the parent of the first node still kept), and a
 * 64-bit fingerprint of every folded name, so an append reusing one is refused.
 *
 * <p>Names are kept as fingerprints, not text: 8 bytes per folded node instead of the node's ~90,
 * exact for refusing every reused name; a new name whose fingerprint equals a folded one's is
 * refused as well (for n folded names about n²/2⁶⁵, one in ten million at a million names).
 */
final class StreamSummary {
  /** The fewest bytes a written summary takes: three counts, a name and the fingerprint count. */
  static final int MIN_BYTES = 4 * Integer.BYTES + FlowGraph.MIN_UTF_BYTES;

  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;
  private static final int MIX_SHIFT = 33;
  private static final long MIX_1 = 0xff51afd7ed558ccdL;
  private static final long MIX_2 = 0xc4ceb9fe1a85ec53L;
  private static final int INITIAL_NAMES = 256;

  private int nodes;
  private int succeeded;
  private int failed;
  private String lastName = "";
  private final Set<Long> fingerprints = new HashSet<>();

  /** The fingerprints as written, in folding order: the first {@code writtenBytes} bytes. */
  private byte[] written = new byte[0];

  private int writtenBytes;

  int nodes() {
    return nodes;
  }

  int succeeded() {
    return succeeded;
  }

  int failed() {
    return failed;
  }

  /** The name of the last folded node, "" if none. */
  String lastName() {
    return lastName;
  }

  /** Whether a folded node had this name (or one of the same fingerprint). */
  boolean mayHaveHad(String name) {
    return fingerprints.contains(fingerprint(name));
  }

  /** Folds a terminal node. */
  void fold(FlowNode n) {
    if (!n.state().isTerminal()) {
      throw new IllegalStateException("node '" + n.name() + "' is " + n.state() + ", not finished");
    }
    nodes++;
    if (n.state() == NodeState.SUCCESS) {
      succeeded++;
    } else {
      failed++;
    }
    lastName = n.name();
    addFingerprint(fingerprint(n.name()));
  }

  private void addFingerprint(long f) {
    fingerprints.add(f);
    if (writtenBytes == written.length) {
      written = Arrays.copyOf(written, Math.max(Long.BYTES * INITIAL_NAMES, 2 * written.length));
    }
    for (int shift = Long.SIZE - Byte.SIZE; shift >= 0; shift -= Byte.SIZE) {
      written[writtenBytes++] = (byte) (f >>> shift); // big-endian, as DataOutput writes a long
    }
  }

  /** Writes the counts and the last name; {@link #writeNames} writes the rest. */
  void writeCounts(DataOutputStream out) throws IOException {
    out.writeInt(nodes);
    out.writeInt(succeeded);
    out.writeInt(failed);
    out.writeUTF(lastName);
    out.writeInt(writtenBytes / Long.BYTES);
  }

  /** The names' fingerprints, as written after {@link #writeCounts}. */
  void writeNames(byte[] to, int at) {
    System.arraycopy(written, 0, to, at, writtenBytes);
  }

  /**
   * The fingerprints of the folded names {@code first} to {@code first + count - 1}, as written (a
   * fresh array).
   */
  byte[] names(int first, int count) {
    return Arrays.copyOfRange(written, first * Long.BYTES, (first + count) * Long.BYTES);
  }

  int namesBytes() {
    return writtenBytes;
  }

  static StreamSummary read(DataInputStream in) throws IOException {
    StreamSummary s = new StreamSummary();
    s.nodes = in.readInt();
    s.succeeded = in.readInt();
    s.failed = in.readInt();
    s.lastName = in.readUTF();
    if (s.nodes < 0 || s.succeeded < 0 || s.failed < 0 || s.succeeded + s.failed != s.nodes) {
      throw new IOException(
          "stream summary counts "
              + s.nodes
              + " nodes, "
              + s.succeeded
              + " succeeded and "
              + s.failed
              + " failed");
    }
    int count = BoundedReads.readCount(in, Long.BYTES, "folded node names");
    if (count != s.nodes) {
      throw new IOException(
          "stream summary holds " + count + " names for " + s.nodes + " folded nodes");
    }
    for (int i = 0; i < count; i++) {
      s.addFingerprint(in.readLong());
    }
    return s;
  }

  /** FNV-1a over the name's UTF-8 bytes, then a 64-bit finalizer to spread the bits. */
  static long fingerprint(String name) {
    long h = FNV_OFFSET;
    for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= FNV_PRIME;
    }
    h ^= h >>> MIX_SHIFT;
    h *= MIX_1;
    h ^= h >>> MIX_SHIFT;
    h *= MIX_2;
    h ^= h >>> MIX_SHIFT;
    return h;
  }
}
