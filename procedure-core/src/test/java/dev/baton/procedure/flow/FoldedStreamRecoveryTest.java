package dev.baton.procedure.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.store.InMemoryProcedureStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stream run by an executor folds its finished nodes; an executor started afresh on the same
 * store (a new registry and runtime, as a new process) shows the same view, still refuses a folded
 * name, and runs what is appended next.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FoldedStreamRecoveryTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int APPENDS = 60;
  private static final int PER_APPEND = 5;
  private static final int NODES = APPENDS * PER_APPEND;
  private static final int KEEP = 10;

  private record Node(ProcedureExecutor<FlowWorld> executor, Flows<FlowWorld> flows) {}

  private static Node start(FlowWorld world, InMemoryProcedureStore store) throws Exception {
    ProcedureRegistry registry = WorldTask.registry();
    FlowRuntime<FlowWorld> runtime =
        WorldTask.runtime(registry)
            .pollInterval(Duration.ofMillis(100))
            .keptFinishedStreamNodes(KEEP);
    ProcedureExecutor<FlowWorld> ex =
        ProcedureExecutor.builder(world, store, registry)
            .coreWorkers(2)
            .maxWorkers(2)
            .completedRetention(Duration.ofMinutes(5))
            .build();
    runtime.bind(ex);
    ex.start();
    return new Node(ex, new Flows<>(runtime, WAIT));
  }

  private static FlowInfo awaitRun(Flows<FlowWorld> flows, long id, int nodes) {
    return Awaitility.await("stream " + id + " ran " + nodes + " nodes")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> flows.get(id).orElseThrow(),
            f -> f.state() == FlowState.FINISH && f.folded().nodes() + f.nodes().size() == nodes);
  }

  @Test
  void aFoldedStreamReadsBackAfterARestartAndGoesOn() throws Exception {
    FlowWorld world = new FlowWorld();
    InMemoryProcedureStore store = new InMemoryProcedureStore();
    Node first = start(world, store);
    List<String> appended = new ArrayList<>();
    long id = 0;
    try {
      for (int k = 0; k < APPENDS; k++) {
        List<NodeSpec> batch = new ArrayList<>();
        for (int j = 0; j < PER_APPEND; j++) {
          batch.add(WorldTask.node("s" + k + "-" + j));
          appended.add("s" + k + "-" + j);
        }
        id = first.flows().append("scene", "g", batch);
      }
      FlowInfo before = awaitRun(first.flows(), id, NODES);
      assertTrue(before.folded().nodes() > 0, "folded: " + before.folded());
      assertEquals(before.folded().nodes(), before.folded().succeeded());
      assertEquals(appended, world.runs(), "every node ran once, in append order");
    } finally {
      first.executor().stop();
    }
    Node second = start(world, store);
    try {
      FlowInfo after = second.flows().get(id).orElseThrow();
      assertEquals(NODES, after.folded().nodes() + after.nodes().size());
      InvalidFlowException taken =
          assertThrows(
              InvalidFlowException.class,
              () -> second.flows().append("scene", "g", List.of(WorldTask.node("s0-0"))));
      assertTrue(taken.getMessage().contains("already had a node 's0-0'"), taken.getMessage());
      assertEquals(id, second.flows().append("scene", "g", List.of(WorldTask.node("later"))));
      FlowInfo done = awaitRun(second.flows(), id, NODES + 1);
      assertEquals(NodeState.SUCCESS, done.node("later").orElseThrow().state());
      assertEquals(NODES + 1, world.runs().size(), "nothing ran twice: " + world.runs());
    } finally {
      second.executor().stop();
    }
  }
}
