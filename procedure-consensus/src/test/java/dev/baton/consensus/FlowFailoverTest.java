package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.flow.FlowDefinition;
import dev.baton.procedure.flow.FlowInfo;
import dev.baton.procedure.flow.FlowRuntime;
import dev.baton.procedure.flow.FlowState;
import dev.baton.procedure.flow.Flows;
import dev.baton.procedure.flow.NodeSpec;
import dev.baton.procedure.flow.NodeState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A workflow keeps running when its leader dies mid-run: the new leader's executor carries on. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FlowFailoverTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  /** Each node's flow runtime, by the node's registry (bound to that node's leader executor). */
  private final Map<ProcedureRegistry, FlowRuntime<Work.Env>> runtimes = new ConcurrentHashMap<>();

  private static NodeSpec work(String name) {
    return NodeSpec.of(name, "Work").withArgs(Map.of("name", name));
  }

  private Flows<Work.Env> flowsOf(ProcedureNode<Work.Env> node) {
    return new Flows<>(runtimes.get(node.registry()), WAIT);
  }

  @Test
  void aFlowFinishesOnTheNewLeaderWhenItsLeaderDiesMidRun() throws Exception {
    AtomicReference<TestCluster> ref = new AtomicReference<>();
    TestCluster cluster =
        new TestCluster(
            dir,
            3,
            b -> {
              ProcedureRegistry registry = Work.registry();
              FlowRuntime<Work.Env> runtime =
                  new FlowRuntime<Work.Env>(registry)
                      .task("Work", args -> new Work(args.get("name")))
                      .pollInterval(Duration.ofMillis(200));
              runtime.bind(
                  () ->
                      ref.get().running().stream()
                          .filter(n -> n.registry() == registry)
                          .findFirst()
                          .flatMap(ProcedureNode::executor));
              runtimes.put(registry, runtime);
              return b.registry(registry);
            });
    ref.set(cluster);
    try (cluster) {
      cluster.startAll();
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      CountDownLatch gate = cluster.world.hold("B:APPLY");
      FlowDefinition def =
          FlowDefinition.builder()
              .node(work("S"))
              .node(work("A"))
              .node(work("B"))
              .node(work("E"))
              .edge("S", "A")
              .edge("S", "B")
              .edge("A", "E")
              .edge("B", "E")
              .build();
      long flowId = flowsOf(leader).submit(def);
      assertTrue(cluster.world.reached.get("B:APPLY").await(60, TimeUnit.SECONDS));

      cluster.kill(leader.nodeId());
      gate.countDown();
      ProcedureNode<Work.Env> next = cluster.awaitRunningLeader();
      assertNotEquals(leader.nodeId(), next.nodeId());
      Flows<Work.Env> flows = flowsOf(next);
      FlowInfo done =
          Awaitility.await("flow " + flowId + " finished on " + next.nodeId())
              .atMost(WAIT)
              .pollInterval(Duration.ofMillis(100))
              .until(() -> flows.get(flowId).orElseThrow(), f -> f.state() == FlowState.FINISH);
      done.nodes().forEach(n -> assertEquals(NodeState.SUCCESS, n.state(), n.toString()));
      for (FlowInfo.NodeInfo n : done.nodes()) {
        assertEquals(1, n.attempts(), "one task per node: " + n);
        List<World.Step> steps = cluster.world.steps(n.name());
        assertEquals(
            List.of(n.taskProcId()),
            steps.stream().map(World.Step::procId).distinct().toList(),
            "every step of " + n.name() + " ran in the one task procedure the flow submitted");
        List<String> states = new ArrayList<>();
        for (World.Step st : steps) { // a step in flight at the kill may run again (at-least-once)
          if (states.isEmpty() || !states.get(states.size() - 1).equals(st.state())) {
            states.add(st.state());
          }
        }
        assertEquals(List.of("PREPARE", "APPLY", "COMMIT"), states, n.name() + ": " + steps);
      }
      assertTrue(
          cluster.world.steps("B").get(1).term() > leader.term(), "B's APPLY ran after the kill");
      assertTrue(
          cluster.world.steps("E").get(0).term() > leader.term(), "E ran under the new leader");
      assertEquals(next.nodeId(), cluster.world.steps("E").get(0).node());
    }
  }
}
