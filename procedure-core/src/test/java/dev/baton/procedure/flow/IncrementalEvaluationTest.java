package dev.baton.procedure.flow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The planner evaluates only the nodes whose parents changed. Checked against a planner that sees
 * every node each round (its graph read back from the record before every round, so its index
 * starts over): on random DAGs with every trigger kind and failure policy, the two take the same
 * decisions, round by round, and the record always holds the live graph.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class IncrementalEvaluationTest {
  private static final int NODES = 60;
  private static final int MAX_ROUNDS = 500;
  private static final long BACKOFF = 5;
  private static final Function<String, Predicate<Map<String, NodeState>>> PREDICATES =
      Map.<String, Predicate<Map<String, NodeState>>>of(
              "half-succeeded",
              parents ->
                  2 * parents.values().stream().filter(s -> s == NodeState.SUCCESS).count()
                      >= parents.size())
          ::get;

  private static FlowDefinition randomDag(Random rnd) {
    FlowDefinition.Builder b = FlowDefinition.builder();
    List<List<String>> parents = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      List<String> ps = new ArrayList<>();
      for (int p = Math.max(0, i - 8); p < i; p++) {
        if (rnd.nextInt(4) == 0) {
          ps.add("n" + p);
        }
      }
      if (ps.isEmpty() && i > 0) {
        ps.add("n" + (i - 1 - rnd.nextInt(Math.min(i, 8)))); // one start node
      }
      parents.add(ps);
      Trigger t =
          switch (ps.isEmpty() ? -1 : rnd.nextInt(5)) {
            case 0 -> Trigger.allFinished();
            case 1 -> Trigger.atLeast(1 + rnd.nextInt(ps.size()));
            case 2 -> Trigger.named(ps.get(0));
            case 3 -> Trigger.custom("half-succeeded");
            default -> Trigger.allSucceeded();
          };
      FailurePolicy policy = FailurePolicy.values()[rnd.nextInt(FailurePolicy.values().length)];
      if (policy == FailurePolicy.END_FLOW && rnd.nextInt(4) > 0) {
        policy = FailurePolicy.CONTINUE; // an ended flow decides nothing more: end few of them
      }
      b.node(
          NodeSpec.of("n" + i, "t")
              .withTrigger(t)
              .onFailure(policy)
              .withRetries(rnd.nextInt(2), BACKOFF));
    }
    Set<String> leaves = new TreeSet<>();
    for (int i = 0; i < NODES; i++) {
      leaves.add("n" + i);
    }
    for (int i = 0; i < NODES; i++) {
      for (String p : parents.get(i)) {
        b.edge(p, "n" + i);
        leaves.remove(p);
      }
    }
    b.node(NodeSpec.of("end", "t").withTrigger(Trigger.allFinished())); // one end node
    for (String leaf : leaves) {
      b.edge(leaf, "end");
    }
    return b.build();
  }

  private static List<String> names(List<FlowNode> nodes) {
    List<String> out = new ArrayList<>();
    for (FlowNode n : nodes) {
      out.add(n.name());
    }
    return out;
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
  void decisionsEqualThoseOfAFullEvaluationEveryRound(long seed) throws Exception {
    Random rnd = new Random(seed);
    FlowDefinition def = randomDag(rnd);
    FlowGraph live = FlowGraph.of(def);
    FlowGraph full = FlowGraph.of(def);
    long now = 1_000;
    for (int round = 0; round < MAX_ROUNDS; round++) {
      full = FlowGraph.decode(full.encode()); // a fresh index: every node is evaluated
      FlowPlanner a = new FlowPlanner(live, PREDICATES);
      FlowPlanner b = new FlowPlanner(full, PREDICATES);
      List<FlowNode> dueA = a.isEnded() ? List.of() : a.evaluate(now);
      List<FlowNode> dueB = b.isEnded() ? List.of() : b.evaluate(now);
      assertEquals(names(dueB), names(dueA), "due in round " + round);
      assertEquals(b.computeState(), a.computeState(), "state in round " + round);
      assertEquals(b.nextRetryAt(now), a.nextRetryAt(now), "next retry in round " + round);
      assertEquals(b.hasActiveNodes(), a.hasActiveNodes());
      a.updateState();
      b.updateState();
      assertEquals(full.toInfo(1), live.toInfo(1), "round " + round);
      assertEquals(live.toInfo(1), FlowGraph.decode(live.encode()).toInfo(1), "the record");
      assertArrayEquals(
          FlowGraph.decode(full.encode()).encode(),
          live.encode(),
          "kept chunks and node bytes encode as a fresh graph does, round " + round);
      if (dueA.isEmpty()) {
        long next = a.nextRetryAt(now);
        if (next == Long.MAX_VALUE) {
          return;
        }
        now = next;
        continue;
      }
      // the same scripted outcome for a node in both graphs: fail about one attempt in three
      for (int i = 0; i < dueA.size(); i++) {
        boolean ok = rnd.nextInt(3) > 0;
        run(a, dueA.get(i), ok, now);
        run(b, dueB.get(i), ok, now);
      }
    }
    throw new AssertionError("seed " + seed + " did not settle in " + MAX_ROUNDS + " rounds");
  }

  private static void run(FlowPlanner p, FlowNode n, boolean ok, long now) {
    if (n.state() != NodeState.READY) {
      return; // an earlier END_FLOW of this round ended it
    }
    n.startAttempt();
    p.taskFinished(n, ok, "scripted failure", now);
  }

  @Test
  void aFinishedNodeOfAWideFanOutMakesOnlyItsChildrenCandidates() {
    int width = 2_000;
    FlowDefinition.Builder b =
        FlowDefinition.builder().node(NodeSpec.of("start", "t")).node(NodeSpec.of("end", "t"));
    for (int i = 0; i < width; i++) {
      b.node(NodeSpec.of("n" + i, "t")).edge("start", "n" + i).edge("n" + i, "end");
    }
    FlowGraph g = FlowGraph.of(b.build());
    FlowPlanner p = new FlowPlanner(g, PREDICATES);
    List<FlowNode> start = p.evaluate(0);
    assertEquals(List.of("start"), names(start));
    run(p, start.get(0), true, 0);
    List<FlowNode> wave = p.evaluate(0);
    assertEquals(width, wave.size(), "start's children fire together");
    for (FlowNode n : wave) {
      n.startAttempt();
    }
    assertEquals(List.of(), p.evaluate(0));
    FlowNode one = g.named("n7");
    p.taskFinished(one, true, "", 0);
    assertEquals(1, g.index().candidates().cardinality(), "only 'end' is to be evaluated");
    assertEquals(List.of(), p.evaluate(0));
    assertEquals(NodeState.WAIT, g.named("end").state());
    assertEquals(width - 1, g.index().count(NodeState.RUNNING));
    assertTrue(p.hasActiveNodes());
  }
}
