package dev.baton.procedure.flow;

import java.util.Map;
import java.util.Set;

/**
 * Drives a {@link FlowPlanner} without an executor: every due node "runs" and finishes as scripted
 * (names in {@code failing} fail every attempt, the others succeed), round after round.
 */
final class PlannerDriver {
  final FlowGraph graph;
  final FlowPlanner planner;
  private final Set<String> failing;
  private long now = 1_000;

  PlannerDriver(FlowGraph graph, Set<String> failing) {
    this.graph = graph;
    this.failing = failing;
    this.planner =
        new FlowPlanner(
            graph,
            Map.<String, java.util.function.Predicate<Map<String, NodeState>>>of(
                    "p1-succeeded", parents -> parents.get("P1") == NodeState.SUCCESS)
                ::get);
  }

  /** Runs rounds until no node is due (retries' backoffs are skipped by moving time). */
  PlannerDriver run() {
    for (int round = 0; round < 1000; round++) {
      var due = planner.evaluate(now);
      if (due.isEmpty()) {
        long next = planner.nextRetryAt(now);
        if (next == Long.MAX_VALUE) {
          planner.updateState();
          return this;
        }
        now = next;
        continue;
      }
      for (FlowNode n : due) {
        n.startAttempt();
      }
      for (FlowNode n : due) {
        planner.taskFinished(n, !failing.contains(n.name()), "scripted failure", now);
      }
    }
    throw new AssertionError("the flow did not settle in 1000 rounds");
  }

  NodeState state(String node) {
    return graph.named(node).state();
  }
}
