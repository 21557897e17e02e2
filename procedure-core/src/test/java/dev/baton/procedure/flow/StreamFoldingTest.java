package dev.baton.procedure.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stream's finished prefix is folded into its summary: the record stays bounded (a fixed number
 * of listed nodes plus a fingerprint per folded name), the view counts the folded nodes, a graph
 * read back from any record (with or without folded nodes) goes on exactly as the live one, and a
 * folded node's name stays taken.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StreamFoldingTest {
  private static final int KEEP = 100;
  private static final int APPENDS = 5_000;
  private static final int PER_APPEND = 5;

  /** Most nodes listed once folded: kept finished ones, a chunk not yet foldable, the tail. */
  private static final int MAX_LISTED = KEEP + 2 * NodeChunks.CHUNK + PER_APPEND;

  /** A listed node's bytes, generously: spec, state, ids, detail. */
  private static final int MAX_NODE_BYTES = 120;

  private static final int MAX_HEADER_BYTES = 200;

  private static final int LINK_BATCH = FlowPlanner.LINK_BATCH;

  private FlowGraph g = new FlowGraph(FlowInfo.Kind.STREAM, "scene", "group");

  private FlowPlanner planner() {
    return new FlowPlanner(g, Map.<String, Predicate<Map<String, NodeState>>>of()::get);
  }

  private static List<NodeSpec> batch(int k) {
    List<NodeSpec> out = new ArrayList<>();
    for (int j = 0; j < PER_APPEND; j++) {
      out.add(NodeSpec.of("a" + k + "-" + j, "t"));
    }
    return out;
  }

  /** Flow steps until the chain has run: link, run every due node to success, fold. */
  private void step(FlowPlanner p) throws Exception {
    p.linkBatch();
    for (List<FlowNode> due = p.evaluate(0); !due.isEmpty(); due = p.evaluate(0)) {
      for (FlowNode n : due) {
        n.startAttempt();
        n.taskSubmitted(1_000 + n.index());
        p.taskFinished(n, true, "", 0);
      }
    }
    p.updateState();
    p.foldFinishedPrefix(KEEP);
  }

  @Test
  void aLongStreamKeepsItsRecordBoundedAndItsViewCountsTheFoldedNodes() throws Exception {
    int largestPerListedNode = 0;
    for (int k = 0; k < APPENDS; k++) {
      FlowPlanner p = planner();
      p.append(batch(k));
      step(p);
      byte[] record = g.encode();
      assertTrue(
          g.nodes().size() <= MAX_LISTED, "listed after append " + k + ": " + g.nodes().size());
      int beyondFingerprints = record.length - Long.BYTES * g.folded();
      assertTrue(
          beyondFingerprints <= MAX_HEADER_BYTES + MAX_LISTED * MAX_NODE_BYTES,
          "record after append " + k + ": " + record.length + " bytes");
      largestPerListedNode = Math.max(largestPerListedNode, beyondFingerprints);
    }
    FlowPlanner p = planner();
    while (p.hasUnlinked() || p.hasActiveNodes()) {
      step(p);
    }
    int total = APPENDS * PER_APPEND;
    FlowInfo view = g.toInfo(1);
    assertEquals(total, view.folded().nodes() + view.nodes().size(), "every node is counted");
    assertEquals(view.folded().nodes(), view.folded().succeeded());
    assertTrue(view.folded().nodes() >= total - MAX_LISTED, "folded: " + view.folded());
    assertEquals(FlowState.FINISH, view.state());
    FlowInfo.NodeInfo first = view.nodes().get(0);
    assertEquals(
        List.of(g.summary().lastName()), first.parents(), "the first listed node's parent");
    assertTrue(largestPerListedNode > 0);
  }

  @Test
  void aGraphReadBackFromAnyRecordGoesOnAsTheLiveOne() throws Exception {
    for (int k = 0; k < 200; k++) {
      FlowPlanner p = planner();
      p.append(batch(k));
      if (k % 3 != 0) {
        step(p); // some steps leave appended nodes unlinked or waiting
      } else {
        p.linkBatch();
      }
      byte[] record = g.encode();
      FlowGraph back = FlowGraph.decode(record);
      assertEquals(g.toInfo(1), back.toInfo(1), "read back after append " + k);
      assertEquals(
          new String(record, java.nio.charset.StandardCharsets.ISO_8859_1),
          new String(back.encode(), java.nio.charset.StandardCharsets.ISO_8859_1));
      if (k % 7 == 0) {
        g = back; // go on from the record, as after a crash
      }
    }
    assertTrue(g.folded() > 0, "the stream folded nodes: " + g.folded());
  }

  @Test
  void aFoldedNodesNameStaysTakenAndItCannotBeResumed() throws Exception {
    for (int k = 0; k < 100; k++) {
      FlowPlanner p = planner();
      p.append(batch(k));
      step(p);
    }
    assertTrue(g.folded() > 0);
    g = FlowGraph.decode(g.encode());
    FlowPlanner p = planner();
    InvalidFlowException taken =
        assertThrows(InvalidFlowException.class, () -> p.append(List.of(NodeSpec.of("a0-0", "t"))));
    assertTrue(taken.getMessage().contains("already had a node 'a0-0'"), taken.getMessage());
    InvalidFlowException resume =
        assertThrows(InvalidFlowException.class, () -> p.resume("a0-1", ResumeAction.RERUN));
    assertTrue(resume.getMessage().contains("folded"), resume.getMessage());
    int listed = g.nodes().size();
    p.append(List.of(NodeSpec.of("fresh", "t")));
    assertEquals(listed + 1, g.nodes().size(), "a new name is taken");
  }

  @Test
  void nodesAppendedToAPartlyEncodedChunkAfterFoldingAreRecorded() throws Exception {
    FlowPlanner p = planner();
    p.append(named("done", 3 * LINK_BATCH));
    while (p.hasUnlinked()) {
      p.linkBatch();
    }
    step(p);
    assertTrue(g.folded() > 0, "the finished prefix was folded: " + g.folded());
    p.append(named("backlog", 3 * LINK_BATCH));
    p.linkBatch(); // leaves most of the backlog unlinked
    g.encode();
    p.append(named("late", PER_APPEND)); // lands in the backlog's last chunk, also unlinked
    p.linkBatch();
    assertEquals(
        g.toInfo(1), FlowGraph.decode(g.encode()).toInfo(1), "the record holds every node");
  }

  private static List<NodeSpec> named(String prefix, int count) {
    List<NodeSpec> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(NodeSpec.of(prefix + i, "t"));
    }
    return out;
  }

  @Test
  void aFiniteFlowIsNeverFolded() throws Exception {
    FlowDefinition.Builder b = FlowDefinition.builder().node(NodeSpec.of("n0", "t"));
    for (int i = 1; i < 500; i++) {
      b.node(NodeSpec.of("n" + i, "t")).edge("n" + (i - 1), "n" + i);
    }
    g = FlowGraph.of(b.build());
    FlowPlanner p = planner();
    for (int i = 0; i < 500; i++) {
      step(p);
    }
    assertEquals(FlowState.FINISH, g.state());
    assertEquals(0, p.foldFinishedPrefix(0));
    assertEquals(500, FlowGraph.decode(g.encode()).toInfo(1).nodes().size());
  }
}
