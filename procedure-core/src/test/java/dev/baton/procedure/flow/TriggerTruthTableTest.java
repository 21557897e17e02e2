package dev.baton.procedure.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Node C has parents P1 (always succeeds) and P2, whose outcome varies: succeeded, failed with
 * CONTINUE, suspended (PENDING) with SUSPEND, failed with END_FLOW, or never triggered (its own
 * parent X failed). P2 runs one round after P1 (it waits for X), so a trigger satisfied by P1 alone
 * fires before P2's outcome is known. Graph: S → P1 → C, S → X → P2 → C.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TriggerTruthTableTest {
  @ParameterizedTest(name = "{0} with P2 {1} -> C {2}")
  @CsvSource({
    "ALL_SUCCEEDED, SUCCEEDED, SUCCESS",
    "ALL_SUCCEEDED, FAILED, ERROR",
    "ALL_SUCCEEDED, PENDING, PENDING",
    "ALL_SUCCEEDED, ENDED, ERROR",
    "ALL_SUCCEEDED, NOT_TRIGGERED, ERROR",
    "ALL_FINISHED, SUCCEEDED, SUCCESS",
    "ALL_FINISHED, FAILED, SUCCESS",
    "ALL_FINISHED, PENDING, PENDING",
    "ALL_FINISHED, ENDED, ERROR",
    "ALL_FINISHED, NOT_TRIGGERED, SUCCESS",
    "AT_LEAST_1, SUCCEEDED, SUCCESS",
    "AT_LEAST_1, FAILED, SUCCESS",
    "AT_LEAST_1, PENDING, SUCCESS",
    "AT_LEAST_1, ENDED, SUCCESS",
    "AT_LEAST_1, NOT_TRIGGERED, SUCCESS",
    "AT_LEAST_2, SUCCEEDED, SUCCESS",
    "AT_LEAST_2, FAILED, ERROR",
    "AT_LEAST_2, PENDING, PENDING",
    "AT_LEAST_2, ENDED, ERROR",
    "AT_LEAST_2, NOT_TRIGGERED, ERROR",
    "NAMED_P1, SUCCEEDED, SUCCESS",
    "NAMED_P1, FAILED, SUCCESS",
    "NAMED_P1, PENDING, SUCCESS",
    "NAMED_P1, ENDED, SUCCESS",
    "NAMED_P1, NOT_TRIGGERED, SUCCESS",
    "NAMED_P2, SUCCEEDED, SUCCESS",
    "NAMED_P2, FAILED, ERROR",
    "NAMED_P2, PENDING, PENDING",
    "NAMED_P2, ENDED, ERROR",
    "NAMED_P2, NOT_TRIGGERED, ERROR",
    "CUSTOM_P1, SUCCEEDED, SUCCESS",
    "CUSTOM_P1, FAILED, SUCCESS",
    "CUSTOM_P1, PENDING, SUCCESS",
    "CUSTOM_P1, ENDED, SUCCESS",
    "CUSTOM_P1, NOT_TRIGGERED, SUCCESS",
  })
  void childStateFollowsTriggerAndParentOutcome(String trigger, String p2, NodeState expected) {
    FailurePolicy p2Policy =
        switch (p2) {
          case "PENDING" -> FailurePolicy.SUSPEND;
          case "ENDED" -> FailurePolicy.END_FLOW;
          default -> FailurePolicy.CONTINUE;
        };
    FlowDefinition def =
        FlowDefinition.builder()
            .node(NodeSpec.of("S", "t"))
            .node(NodeSpec.of("P1", "t"))
            .node(NodeSpec.of("X", "t").onFailure(FailurePolicy.CONTINUE))
            .node(NodeSpec.of("P2", "t").onFailure(p2Policy).withRetries(1, 5))
            .node(NodeSpec.of("C", "t").withTrigger(trigger(trigger)))
            .edge("S", "P1")
            .edge("S", "X")
            .edge("X", "P2")
            .edge("P1", "C")
            .edge("P2", "C")
            .build();
    Set<String> failing =
        switch (p2) {
          case "SUCCEEDED" -> Set.of();
          case "NOT_TRIGGERED" -> Set.of("X");
          default -> Set.of("P2");
        };
    PlannerDriver d = new PlannerDriver(FlowGraph.of(def), failing).run();

    assertEquals(expected, d.state("C"), "C; detail: " + d.graph.named("C").detail());
    assertEquals(NodeState.SUCCESS, d.state("P1"));
    NodeState p2State =
        switch (p2) {
          case "SUCCEEDED" -> NodeState.SUCCESS;
          case "PENDING" -> NodeState.PENDING;
          default -> NodeState.ERROR;
        };
    assertEquals(p2State, d.state("P2"));
    if (!p2.equals("SUCCEEDED") && !p2.equals("NOT_TRIGGERED")) {
      assertEquals(2, d.graph.named("P2").attempts(), "one retry before the policy applies");
    }
    FlowState flow = p2.equals("PENDING") ? FlowState.PENDING : FlowState.FINISH;
    assertEquals(flow, d.graph.state());
    assertEquals(p2.equals("ENDED"), !d.graph.detail().isEmpty(), d.graph.detail());
  }

  private static Trigger trigger(String name) {
    return switch (name) {
      case "ALL_SUCCEEDED" -> Trigger.allSucceeded();
      case "ALL_FINISHED" -> Trigger.allFinished();
      case "AT_LEAST_1" -> Trigger.atLeast(1);
      case "AT_LEAST_2" -> Trigger.atLeast(2);
      case "NAMED_P1" -> Trigger.named("P1");
      case "NAMED_P2" -> Trigger.named("P2");
      case "CUSTOM_P1" -> Trigger.custom("p1-succeeded");
      default -> throw new IllegalArgumentException(name);
    };
  }
}
