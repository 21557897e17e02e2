package dev.baton.procedure.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Appended stream nodes are linked in append order, at most {@value FlowPlanner#LINK_BATCH} a
 * batch.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class StreamLinkingTest {
  private final FlowGraph g = new FlowGraph(FlowInfo.Kind.STREAM, "scene", "group");
  private final FlowPlanner planner =
      new FlowPlanner(
          g, Map.<String, java.util.function.Predicate<Map<String, NodeState>>>of()::get);

  private static List<NodeSpec> nodes(String prefix, int n) {
    List<NodeSpec> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(NodeSpec.of(prefix + i, "t"));
    }
    return out;
  }

  @Test
  void appendedNodesAreLinkedInBatchesOfAtMostOneHundredIntoOneChain() {
    planner.append(nodes("n", 250));
    assertEquals(NodeState.INIT, g.nodes().get(0).state());
    assertEquals(100, planner.linkBatch());
    assertEquals(NodeState.WAIT, g.nodes().get(99).state());
    assertEquals(NodeState.INIT, g.nodes().get(100).state());
    assertEquals(100, planner.linkBatch());
    assertTrue(planner.hasUnlinked());
    assertEquals(50, planner.linkBatch());
    assertFalse(planner.hasUnlinked());
    assertEquals(0, planner.linkBatch());
    assertEquals(List.of(), g.nodes().get(0).parents(), "the first node heads the chain");
    for (int i = 1; i < 250; i++) {
      assertEquals(List.of(i - 1), g.nodes().get(i).parents(), "node " + i);
      assertEquals(List.of(i), g.nodes().get(i - 1).children(), "no fork at " + (i - 1));
    }
    List<FlowNode> due = planner.evaluate(0);
    assertEquals(List.of(g.nodes().get(0)), due, "only the head is ready");
  }

  @Test
  void aBatchAfterAFinishedTailStartsANewPartAndNamesStayUnique() {
    planner.append(nodes("a", 1));
    planner.linkBatch();
    FlowNode head = planner.evaluate(0).get(0);
    head.setState(NodeState.RUNNING, "");
    planner.taskFinished(head, true, "", 0);
    planner.append(nodes("b", 2));
    planner.linkBatch();
    assertEquals(List.of(), g.named("b0").parents(), "b0 starts a new part");
    assertEquals(List.of(1), g.named("b1").parents());
    InvalidFlowException dup =
        assertThrows(InvalidFlowException.class, () -> planner.append(nodes("b", 1)));
    assertTrue(dup.getMessage().contains("already has a node 'b0'"), dup.getMessage());
    assertEquals(3, g.nodes().size(), "a refused append adds nothing");
  }
}
