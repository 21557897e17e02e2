package dev.baton.procedure.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.store.InMemoryProcedureStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Stream flows: a single chain per scene and group, grown by appends, linked in batches. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StreamFlowTest {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final int PRODUCERS = 8;
  private static final int PER_APPEND = 5;
  private static final int APPENDS_PER_PRODUCER = 12;

  /**
   * Enough for appends of every producer to interleave and for several link batches of the chain;
   * how appends scale with a long chain is FlowBenchmark's stream growth figure.
   */
  private static final int NODES = PRODUCERS * APPENDS_PER_PRODUCER * PER_APPEND;

  private final FlowWorld world = new FlowWorld();
  private ProcedureExecutor<FlowWorld> executor;
  private Flows<FlowWorld> flows;

  @BeforeEach
  void start() throws Exception {
    ProcedureRegistry registry = WorldTask.registry();
    FlowRuntime<FlowWorld> runtime =
        WorldTask.runtime(registry).pollInterval(Duration.ofMillis(100));
    executor =
        ProcedureExecutor.builder(world, new InMemoryProcedureStore(), registry)
            .coreWorkers(4)
            .maxWorkers(4)
            .completedRetention(Duration.ofMinutes(5))
            .build();
    runtime.bind(executor);
    executor.start();
    flows = new Flows<>(runtime, WAIT);
  }

  @AfterEach
  void stop() {
    world.gates.values().forEach(java.util.concurrent.CountDownLatch::countDown);
    executor.stop();
  }

  private FlowInfo awaitIdle(long id, int nodes) {
    return Awaitility.await("stream " + id + " idle with " + nodes + " nodes")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> flows.get(id).orElseThrow(),
            f -> f.state() == FlowState.FINISH && f.nodes().size() == nodes);
  }

  @Test
  void concurrentAppendsFromEightThreadsFormOneChainKeepingEachProducersOrder() throws Exception {
    ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
    Set<Long> ids = java.util.concurrent.ConcurrentHashMap.newKeySet();
    List<Future<?>> done = new ArrayList<>();
    int perProducer = APPENDS_PER_PRODUCER * PER_APPEND;
    for (int p = 0; p < PRODUCERS; p++) {
      int producer = p;
      done.add(
          producers.submit(
              () -> {
                for (int k = 0; k < perProducer; k += PER_APPEND) {
                  List<NodeSpec> batch = new ArrayList<>();
                  for (int j = k; j < k + PER_APPEND; j++) {
                    batch.add(WorldTask.node("p" + producer + "-" + j));
                  }
                  ids.add(flows.append("bench", "g1", batch));
                }
                return null;
              }));
    }
    for (Future<?> f : done) {
      f.get(90, TimeUnit.SECONDS);
    }
    producers.shutdown();
    assertEquals(1, ids.size(), "every append reached the same stream flow: " + ids);
    long id = ids.iterator().next();

    FlowInfo flow = awaitIdle(id, NODES);
    assertEquals(FlowInfo.Kind.STREAM, flow.kind());
    Map<String, Integer> lastSeen = new HashMap<>();
    Set<String> parents = new HashSet<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < flow.nodes().size(); i++) {
      FlowInfo.NodeInfo n = flow.nodes().get(i);
      names.add(n.name());
      assertEquals(NodeState.SUCCESS, n.state(), n.toString());
      if (i > 0 && !n.parents().isEmpty()) {
        assertEquals(List.of(flow.nodes().get(i - 1).name()), n.parents(), "a chain: " + n);
      }
      assertTrue(n.parents().size() <= 1);
      for (String parent : n.parents()) {
        assertTrue(parents.add(parent), "the chain forked at " + parent);
      }
      String[] pk = n.name().substring(1).split("-");
      int k = Integer.parseInt(pk[1]);
      Integer before = lastSeen.put(pk[0], k);
      assertTrue(before == null || before < k, "producer order broken at " + n.name());
    }
    assertEquals(PRODUCERS, lastSeen.size());
    assertEquals(names, world.runs(), "tasks ran in chain order");
  }

  @Test
  void anAppendAfterTheTailFinishedStartsANewPart() throws Exception {
    long id = flows.append("scene", "g", List.of(WorldTask.node("a"), WorldTask.node("b")));
    awaitIdle(id, 2);
    assertEquals(id, flows.append("scene", "g", List.of(WorldTask.node("c"))));
    FlowInfo f = awaitIdle(id, 3);
    assertEquals(List.of("a"), f.node("b").orElseThrow().parents());
    assertEquals(List.of(), f.node("c").orElseThrow().parents(), "c heads a new part");
    assertEquals(List.of("a", "b", "c"), world.runs());
    assertEquals(java.util.Optional.of(id), flows.streamId("scene", "g"));
  }

  @Test
  void aSuspendedNodePausesTheStreamUntilResumed() throws Exception {
    world.fail("b", 1);
    long id = flows.append("scene", "g", List.of(WorldTask.node("a"), WorldTask.node("b")));
    Awaitility.await()
        .atMost(WAIT)
        .until(() -> flows.get(id).orElseThrow().state() == FlowState.PENDING);
    flows.append("scene", "g", List.of(WorldTask.node("c")));
    FlowInfo paused = flows.get(id).orElseThrow();
    assertEquals(NodeState.PENDING, paused.node("c").orElseThrow().state(), paused.toString());
    assertEquals(List.of("b"), paused.node("c").orElseThrow().parents());

    flows.resume(id, "b", ResumeAction.RERUN);
    FlowInfo f = awaitIdle(id, 3);
    f.nodes().forEach(n -> assertEquals(NodeState.SUCCESS, n.state()));
    assertEquals(List.of("a", "b", "b", "c"), world.runs());
  }

  @Test
  void badAppendsAreRefusedAndAppendNothing() throws Exception {
    List<NodeSpec> one = List.of(WorldTask.node("a"));
    assertThrows(InvalidFlowException.class, () -> flows.append("s".repeat(31), "g", one));
    assertThrows(InvalidFlowException.class, () -> flows.append("s", "g".repeat(101), one));
    assertThrows(InvalidFlowException.class, () -> flows.append("s", "g", List.of()));
    assertThrows(
        InvalidFlowException.class, () -> flows.append("s", "g", List.of(NodeSpec.of("x", "no"))));
    long id = flows.append("s".repeat(30), "g".repeat(100), one);
    InvalidFlowException dup =
        assertThrows(
            InvalidFlowException.class,
            () ->
                flows.append(
                    "s".repeat(30),
                    "g".repeat(100),
                    List.of(WorldTask.node("z"), WorldTask.node("a"))));
    assertTrue(dup.getMessage().contains("already has a node 'a'"), dup.getMessage());
    FlowInfo f = awaitIdle(id, 1);
    assertEquals("a", f.nodes().get(0).name());
  }
}
