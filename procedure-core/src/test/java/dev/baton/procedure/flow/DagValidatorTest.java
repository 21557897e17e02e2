package dev.baton.procedure.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class DagValidatorTest {
  private static FlowDefinition.Builder nodes(String... names) {
    FlowDefinition.Builder b = FlowDefinition.builder();
    for (String n : names) {
      b.node(NodeSpec.of(n, "t"));
    }
    return b;
  }

  private static String error(FlowDefinition.Builder b) {
    return assertThrows(InvalidFlowException.class, b::build).getMessage();
  }

  @Test
  void aCycleIsRefusedNamingItsNodesInOrder() {
    String msg =
        error(
            nodes("s", "a", "b", "c", "e")
                .edge("s", "a")
                .edge("a", "b")
                .edge("b", "c")
                .edge("c", "a")
                .edge("c", "e"));
    assertEquals("the flow has a cycle: a -> b -> c -> a", msg);
  }

  @Test
  void aSelfLoopIsACycle() {
    assertEquals(
        "the flow has a cycle: a -> a",
        error(nodes("s", "a", "e").edge("s", "a").edge("a", "a").edge("a", "e")));
  }

  @Test
  void severalStartsOrEndsAreRefused() {
    assertEquals(
        "a flow needs exactly one start node, found [a, b]",
        error(nodes("a", "b", "e").edge("a", "e").edge("b", "e")));
    assertEquals(
        "a flow needs exactly one end node, found [a, b]",
        error(nodes("s", "a", "b").edge("s", "a").edge("s", "b")));
  }

  @Test
  void danglingAndDuplicateEdgesAndNodesAreRefused() {
    assertEquals(
        "dangling edge s -> x: unknown node 'x'",
        error(nodes("s", "e").edge("s", "e").edge("s", "x")));
    assertEquals("duplicate edge s -> e", error(nodes("s", "e").edge("s", "e").edge("s", "e")));
    assertEquals("duplicate node name 's'", error(nodes("s", "s")));
    assertEquals("a flow needs at least one node", error(FlowDefinition.builder()));
  }

  @Test
  void triggersMayOnlyNameOrCountParents() {
    FlowDefinition.Builder named =
        FlowDefinition.builder()
            .node(NodeSpec.of("s", "t"))
            .node(NodeSpec.of("e", "t").withTrigger(Trigger.named("x")))
            .edge("s", "e");
    assertTrue(error(named).contains("names nodes that are not its parents: [x]"));
    FlowDefinition.Builder count =
        FlowDefinition.builder()
            .node(NodeSpec.of("s", "t"))
            .node(NodeSpec.of("e", "t").withTrigger(Trigger.atLeast(2)))
            .edge("s", "e");
    assertTrue(error(count).contains("needs 2 succeeded parents but has only 1"));
  }

  @Test
  void badNodeSpecsAreRefusedAtTheBoundary() {
    assertThrows(InvalidFlowException.class, () -> NodeSpec.of("bad name", "t"));
    assertThrows(InvalidFlowException.class, () -> NodeSpec.of("a", ""));
    assertThrows(InvalidFlowException.class, () -> NodeSpec.of("a", "t").withRetries(-1, 0));
    assertThrows(InvalidFlowException.class, () -> Trigger.atLeast(0));
  }

  @Test
  void aSingleNodeAndADiamondAreValid() {
    assertEquals(1, nodes("only").build().nodes().size());
    FlowDefinition d =
        nodes("s", "a", "b", "e")
            .edge("s", "a")
            .edge("s", "b")
            .edge("a", "e")
            .edge("b", "e")
            .build();
    assertEquals(4, d.edges().size());
  }
}
