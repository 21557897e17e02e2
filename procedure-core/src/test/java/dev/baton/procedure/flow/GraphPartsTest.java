package dev.baton.procedure.flow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.store.RecordParts;
import java.io.ByteArrayOutputStream;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A graph's record parts keep stable indexes: a changed node rewrites its chunk only, folding a
 * finished prefix drops the folded chunks' parts and adds their names without moving any other
 * part, and the head followed by the parts reads back as the graph.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GraphPartsTest {
  private static final int BASE = GraphParts.NODE_PARTS_BASE;
  private static final int CHUNKS = 4;

  private static FlowGraph finishedStream() {
    FlowGraph g = new FlowGraph(FlowInfo.Kind.STREAM, "scene", "group");
    for (int i = 0; i < CHUNKS * NodeChunks.CHUNK; i++) {
      g.add(NodeSpec.of("n" + i, "t"), NodeState.SUCCESS);
    }
    g.add(NodeSpec.of("last", "t"), NodeState.WAIT);
    return g;
  }

  private static Set<Integer> dropsOf(RecordParts delta) {
    Set<Integer> out = new TreeSet<>();
    for (int i : delta.drops()) {
      out.add(i);
    }
    return out;
  }

  /** The graph a record with these complete parts and this head reads back as. */
  private static FlowInfo readBack(byte[] head, RecordParts complete) throws Exception {
    ByteArrayOutputStream joined = new ByteArrayOutputStream();
    joined.write(head);
    for (byte[] part : complete.parts().values()) {
      joined.write(part);
    }
    return FlowGraph.decode(joined.toByteArray()).toInfo(1);
  }

  @Test
  void foldingDropsTheFoldedChunksAndMovesNoOtherPart() throws Exception {
    FlowGraph g = finishedStream();
    RecordParts first = g.takeParts();
    RecordParts stored = first.applyTo(RecordParts.NONE);
    assertEquals(CHUNKS + 1, stored.parts().size(), "every chunk of nodes is written first");
    assertEquals(BASE, (int) stored.parts().firstKey());
    byte[] untouched = stored.parts().get(BASE + 2);

    assertEquals(0, g.takeParts().parts().size(), "nothing changed, nothing is written");

    g.fold(NodeChunks.CHUNK);
    RecordParts afterFold = g.takeParts();
    assertEquals(Set.of(0), afterFold.parts().keySet(), "only the folded names are put");
    assertEquals(Set.of(BASE), dropsOf(afterFold), "only the folded chunk is dropped");
    stored = afterFold.applyTo(stored);
    assertArrayEquals(untouched, stored.parts().get(BASE + 2), "a kept chunk keeps its index");

    g.encodingChanged(NodeChunks.CHUNK); // the first kept node
    RecordParts changed = g.takeParts();
    assertEquals(Set.of(BASE + 1), changed.parts().keySet(), "the changed node's chunk only");
    stored = changed.applyTo(stored);

    FlowInfo read = readBack(g.encodeHead(), stored);
    assertEquals(FlowGraph.decode(g.encode()).toInfo(1), read);
    assertEquals(NodeChunks.CHUNK, read.folded().nodes());
    assertTrue(read.nodes().size() > NodeChunks.CHUNK);
  }
}
