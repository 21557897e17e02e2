package dev.baton.procedure.flow;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The encoded nodes of a {@link FlowGraph} in chunks of {@value #CHUNK} nodes, each kept until one
 * of its nodes changes, so encoding a graph re-encodes the changed chunks and copies the others.
 */
final class NodeChunks {
  /** Nodes per chunk. */
  static final int CHUNK = 64;

  /** Bytes reserved per node when a chunk is encoded (grows as needed). */
  private static final int NODE_BYTES_GUESS = 64;

  private final List<byte[]> chunks = new ArrayList<>();
  private final BitSet dirty = new BitSet();

  /** Chunks encoded afresh since {@link #takeReencoded}: the record parts to write again. */
  private final BitSet reencoded = new BitSet();

  /** The node at {@code slot} (its place among the kept nodes) changed or was added. */
  void changed(int slot) {
    dirty.set(slot / CHUNK);
  }

  /** The first {@code count} chunks' nodes were folded away. */
  void dropFirst(int count) {
    chunks.subList(0, Math.min(count, chunks.size())).clear();
    shift(dirty, count);
    shift(reencoded, count);
  }

  private static void shift(BitSet bits, int count) {
    BitSet rest = bits.get(count, Math.max(count, bits.length()));
    bits.clear();
    bits.or(rest);
  }

  /** The slots of the chunks encoded afresh since the last call (a set the caller keeps). */
  BitSet takeReencoded() {
    BitSet taken = (BitSet) reencoded.clone();
    reencoded.clear();
    return taken;
  }

  /** The encoded nodes, in order, given every node; re-encodes the changed chunks. */
  List<byte[]> encoded(List<FlowNode> nodes, NodeEncoder encoder) throws IOException {
    int count = (nodes.size() + CHUNK - 1) / CHUNK;
    while (chunks.size() > count) {
      chunks.remove(chunks.size() - 1);
      reencoded.clear(chunks.size());
    }
    while (chunks.size() < count) {
      chunks.add(null);
      dirty.set(chunks.size() - 1);
    }
    for (int c = dirty.nextSetBit(0); c >= 0 && c < count; c = dirty.nextSetBit(c + 1)) {
      int end = Math.min(nodes.size(), (c + 1) * CHUNK);
      ByteArrayOutputStream out = new ByteArrayOutputStream((end - c * CHUNK) * NODE_BYTES_GUESS);
      for (int i = c * CHUNK; i < end; i++) {
        out.write(encoder.encode(nodes.get(i)));
      }
      chunks.set(c, out.toByteArray());
      reencoded.set(c);
    }
    dirty.clear();
    return chunks;
  }

  /** Encodes one node. */
  interface NodeEncoder {
    byte[] encode(FlowNode n) throws IOException;
  }
}
