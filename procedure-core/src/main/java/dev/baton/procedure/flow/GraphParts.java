package dev.baton.procedure.flow;

import dev.baton.procedure.store.RecordParts;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What of a {@link FlowGraph} changed since its record was last persisted, as record parts: the
 * graph's head is the record's result, its folded names and its nodes are parts, so a step writes
 * the chunks that changed and not the whole graph. Part {@code k} below {@link #NODE_PARTS_BASE}
 * holds the fingerprints of the names of folded chunk {@code k}; part {@code NODE_PARTS_BASE + a}
 * holds node chunk {@code a}, counted from the stream's first node, folded ones included. Both
 * indexes are stable: folding a chunk drops its node part and adds its names part, and no other
 * part moves. In index order the parts are the names, then the nodes, as the graph's encoding has
 * them after its head.
 */
final class GraphParts {
  /** The index of the part of node chunk 0; the names parts lie below it. */
  static final int NODE_PARTS_BASE = 1 << 30;

  private final TreeMap<Integer, byte[]> put = new TreeMap<>();
  private final TreeSet<Integer> dropped = new TreeSet<>();

  /** The number of node chunks, folded ones included, the store holds parts of. */
  private int persistedChunkEnd;

  /** Chunks {@code first} to {@code first + count - 1} were folded into {@code summary}. */
  void folded(int first, int count, StreamSummary summary) {
    for (int a = first; a < first + count; a++) {
      put.remove(NODE_PARTS_BASE + a);
      dropped.add(NODE_PARTS_BASE + a);
      put.put(a, summary.names(a * NodeChunks.CHUNK, NodeChunks.CHUNK));
    }
  }

  /**
   * The graph was read back with {@code foldedChunks} chunks folded into {@code summary} and {@code
   * keptChunks} kept: the names parts are written again with the next record (the record may have
   * held the graph whole, without parts), the node chunks are encoded afresh anyway.
   */
  void readBack(int foldedChunks, int keptChunks, StreamSummary summary) {
    for (int a = 0; a < foldedChunks; a++) {
      put.put(a, summary.names(a * NodeChunks.CHUNK, NodeChunks.CHUNK));
    }
    persistedChunkEnd = foldedChunks + keptChunks;
  }

  /**
   * The parts delta of the next record, given the node chunks as now encoded (the first one is
   * chunk {@code first}) and which of them were encoded afresh; the changes are taken.
   */
  RecordParts take(int first, List<byte[]> chunks, BitSet reencoded) {
    Map<Integer, byte[]> parts = new TreeMap<>(put);
    for (int c = reencoded.nextSetBit(0);
        c >= 0 && c < chunks.size();
        c = reencoded.nextSetBit(c + 1)) {
      parts.put(NODE_PARTS_BASE + first + c, chunks.get(c));
    }
    TreeSet<Integer> drops = new TreeSet<>(dropped);
    int end = first + chunks.size();
    for (int a = end; a < persistedChunkEnd; a++) {
      drops.add(NODE_PARTS_BASE + a);
    }
    drops.removeAll(parts.keySet());
    persistedChunkEnd = end;
    put.clear();
    dropped.clear();
    return RecordParts.delta(parts, drops.stream().mapToInt(Integer::intValue).toArray());
  }
}
