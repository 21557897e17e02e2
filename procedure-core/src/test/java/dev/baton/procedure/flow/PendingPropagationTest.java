package dev.baton.procedure.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A suspended node shows its waiting descendants PENDING; resume clears or settles them. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class PendingPropagationTest {
  /** A → B → C → D, B suspends after failing. */
  private static PlannerDriver chain(Set<String> failing) {
    FlowDefinition def =
        FlowDefinition.builder()
            .node(NodeSpec.of("A", "t"))
            .node(NodeSpec.of("B", "t"))
            .node(NodeSpec.of("C", "t"))
            .node(NodeSpec.of("D", "t"))
            .edge("A", "B")
            .edge("B", "C")
            .edge("C", "D")
            .build();
    return new PlannerDriver(FlowGraph.of(def), failing).run();
  }

  @Test
  void descendantsOfASuspendedNodeAreShownPendingAndCannotBeResumedThemselves() {
    PlannerDriver d = chain(Set.of("B"));
    assertEquals(NodeState.PENDING, d.state("B"));
    assertEquals(NodeState.PENDING, d.state("C"));
    assertEquals(NodeState.PENDING, d.state("D"));
    assertEquals(FlowState.PENDING, d.graph.state());
    assertTrue(d.graph.named("D").detail().contains("suspended node 'B'"));

    InvalidFlowException inherited =
        assertThrows(InvalidFlowException.class, () -> d.planner.resume("D", ResumeAction.RERUN));
    assertTrue(inherited.getMessage().contains("suspended node 'B'"), inherited.getMessage());
    InvalidFlowException done =
        assertThrows(InvalidFlowException.class, () -> d.planner.resume("A", ResumeAction.RERUN));
    assertEquals(
        "node 'A' is SUCCESS, not PENDING; only a PENDING node resumes", done.getMessage());
    assertThrows(InvalidFlowException.class, () -> d.planner.resume("nope", ResumeAction.RERUN));
  }

  @Test
  void markSucceededLetsTheRestRun() {
    PlannerDriver d = chain(Set.of("B"));
    d.planner.resume("B", ResumeAction.MARK_SUCCEEDED);
    d.run();
    assertEquals(NodeState.SUCCESS, d.state("B"));
    assertEquals(NodeState.SUCCESS, d.state("D"));
    assertEquals(FlowState.FINISH, d.graph.state());
  }

  @Test
  void markFailedMakesDescendantsNeverTriggered() {
    PlannerDriver d = chain(Set.of("B"));
    d.planner.resume("B", ResumeAction.MARK_FAILED);
    d.run();
    assertEquals(NodeState.ERROR, d.state("B"));
    assertEquals(NodeState.ERROR, d.state("C"));
    assertTrue(d.graph.named("C").detail().startsWith("never triggered"));
    assertEquals(FlowState.FINISH, d.graph.state());
  }

  @Test
  void rerunRunsTheNodeAgainWithAFreshRetryBudget() {
    PlannerDriver d = chain(Set.of("B"));
    FlowNode b = d.graph.named("B");
    assertEquals(1, b.attempts());
    d.planner.resume("B", ResumeAction.RERUN);
    assertEquals(NodeState.READY, b.state());
    assertEquals(0, b.attempts());
    d.run(); // B still fails: suspended again, a second suspension
    assertEquals(NodeState.PENDING, b.state());
    assertEquals(2, b.pendingEpoch());
  }

  @Test
  void terminalNodesNeverChange() {
    PlannerDriver d = chain(Set.of());
    FlowNode a = d.graph.named("A");
    assertThrows(IllegalStateException.class, () -> a.setState(NodeState.READY, "again"));
    assertEquals(NodeState.SUCCESS, a.state());
  }

  @Test
  void theStateSurvivesEncoding() throws Exception {
    PlannerDriver d = chain(Set.of("B"));
    FlowGraph back = FlowGraph.decode(d.graph.encode());
    assertEquals(d.graph.toInfo(7), back.toInfo(7));
  }
}
