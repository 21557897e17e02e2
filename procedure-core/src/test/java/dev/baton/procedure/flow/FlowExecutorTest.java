package dev.baton.procedure.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.store.FileProcedureStore;
import dev.baton.procedure.store.ProcedureStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Finite flows on a real executor with a file store: parallelism, retries, policies, restart. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FlowExecutorTest {
  static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration POLL = Duration.ofMillis(100);
  private static final int WORKERS = 4;

  @TempDir Path dir;
  private final FlowWorld world = new FlowWorld();
  private final List<ProcedureExecutor<FlowWorld>> executors = new ArrayList<>();
  private ProcedureExecutor<FlowWorld> executor;
  private Flows<FlowWorld> flows;

  @AfterEach
  void stopAll() {
    world.gates.values().forEach(java.util.concurrent.CountDownLatch::countDown);
    executors.forEach(ProcedureExecutor::stop);
  }

  /** A new executor, registry and runtime (as a new process would have) on the store in dir. */
  private void start() throws IOException {
    ProcedureRegistry registry = WorldTask.registry();
    FlowRuntime<FlowWorld> runtime = WorldTask.runtime(registry).pollInterval(POLL);
    ProcedureStore store = new FileProcedureStore(dir, FileProcedureStore.Config.defaults());
    executor =
        ProcedureExecutor.builder(world, store, registry)
            .coreWorkers(WORKERS)
            .maxWorkers(WORKERS)
            .build();
    executors.add(executor);
    runtime.bind(executor);
    executor.start();
    flows = new Flows<>(runtime, WAIT);
  }

  private static FlowDefinition diamond(NodeSpec a, NodeSpec b) {
    return FlowDefinition.builder()
        .node(WorldTask.node("S"))
        .node(a)
        .node(b)
        .node(WorldTask.node("E"))
        .edge("S", a.name())
        .edge("S", b.name())
        .edge(a.name(), "E")
        .edge(b.name(), "E")
        .build();
  }

  private FlowInfo awaitState(long flowId, FlowState state) {
    return Awaitility.await("flow " + flowId + " " + state)
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> flows.get(flowId).orElseThrow(), f -> f.state() == state);
  }

  @Test
  void readyNodesRunInParallelAndTheFlowFinishes() throws Exception {
    start();
    var gate = world.gate("A");
    var aStarted = world.started("A");
    var bStarted = world.started("B");
    long id = flows.submit(diamond(WorldTask.node("A"), WorldTask.node("B")));
    assertTrue(aStarted.await(20, TimeUnit.SECONDS));
    assertTrue(bStarted.await(20, TimeUnit.SECONDS), "B started while A was still running");
    assertEquals(FlowState.RUNNING, flows.get(id).orElseThrow().state());
    gate.countDown();

    FlowInfo done = flows.await(id, WAIT);
    assertEquals(FlowState.FINISH, done.state());
    done.nodes().forEach(n -> assertEquals(NodeState.SUCCESS, n.state(), n.toString()));
    assertEquals(List.of("S"), world.runs().subList(0, 1));
    assertEquals("E", world.runs().get(3));
    assertEquals(ProcedureState.SUCCESS, executor.getInfo(id).orElseThrow().state());
  }

  @Test
  void aFailingNodeIsRetriedWithBackoffUntilItSucceeds() throws Exception {
    start();
    world.fail("A", 2);
    long id = flows.submit(diamond(WorldTask.node("A").withRetries(2, 20), WorldTask.node("B")));
    FlowInfo done = flows.await(id, WAIT);
    FlowInfo.NodeInfo a = done.node("A").orElseThrow();
    assertEquals(NodeState.SUCCESS, a.state());
    assertEquals(3, a.attempts());
    assertEquals(3, world.runsOf("A"));
    assertEquals(NodeState.SUCCESS, done.node("E").orElseThrow().state());
  }

  @Test
  void aSuspendedNodeIsResumedThroughTheApiAndResumeIsIdempotent() throws Exception {
    start();
    world.fail("A", 1);
    long id = flows.submit(diamond(WorldTask.node("A"), WorldTask.node("B")));
    FlowInfo pending = awaitState(id, FlowState.PENDING);
    assertEquals(NodeState.PENDING, pending.node("A").orElseThrow().state());
    assertEquals(NodeState.PENDING, pending.node("E").orElseThrow().state());
    assertEquals(NodeState.SUCCESS, pending.node("B").orElseThrow().state());

    InvalidFlowException inherited =
        assertThrows(InvalidFlowException.class, () -> flows.resume(id, "E", ResumeAction.RERUN));
    assertTrue(inherited.getMessage().contains("suspended node 'A'"), inherited.getMessage());
    InvalidFlowException notPending =
        assertThrows(InvalidFlowException.class, () -> flows.resume(id, "B", ResumeAction.RERUN));
    assertTrue(notPending.getMessage().contains("not PENDING"), notPending.getMessage());

    flows.resume(id, "A", ResumeAction.RERUN);
    flows.resume(id, "A", ResumeAction.RERUN); // the same suspension: the first command's outcome
    InvalidFlowException other =
        assertThrows(
            InvalidFlowException.class, () -> flows.resume(id, "A", ResumeAction.MARK_FAILED));
    assertTrue(other.getMessage().contains("PENDING"), other.getMessage());
    FlowInfo done = flows.await(id, WAIT);
    assertEquals(FlowState.FINISH, done.state());
    assertEquals(NodeState.SUCCESS, done.node("E").orElseThrow().state());
    assertEquals(2, world.runsOf("A"), "the repeated resume did not run A a third time");
  }

  @Test
  void endFlowPolicyEndsTheFlowAndMarksTheRestFailed() throws Exception {
    start();
    world.fail("A", 1);
    var gate = world.gate("B");
    long id =
        flows.submit(
            diamond(WorldTask.node("A").onFailure(FailurePolicy.END_FLOW), WorldTask.node("B")));
    FlowInfo done = flows.await(id, WAIT);
    gate.countDown();
    assertEquals(FlowState.FINISH, done.state());
    assertTrue(done.detail().contains("node 'A'"), done.detail());
    assertEquals(NodeState.ERROR, done.node("A").orElseThrow().state());
    assertEquals(NodeState.ERROR, done.node("B").orElseThrow().state());
    assertEquals(NodeState.ERROR, done.node("E").orElseThrow().state());
  }

  @Test
  void unknownTaskTypesAndPredicatesAreRefusedAndNothingIsSubmitted() throws Exception {
    start();
    FlowDefinition unknownType = diamond(NodeSpec.of("A", "nope"), WorldTask.node("B"));
    InvalidFlowException e =
        assertThrows(InvalidFlowException.class, () -> flows.submit(unknownType));
    assertEquals("node 'A' names unknown task type 'nope'", e.getMessage());
    FlowDefinition unknownPredicate =
        diamond(WorldTask.node("A"), WorldTask.node("B").withTrigger(Trigger.custom("x")));
    assertThrows(InvalidFlowException.class, () -> flows.submit(unknownPredicate));
    assertEquals(List.of(), executor.list());
  }

  @Test
  void anIdleStreamWaitsWithoutPollingAndTakesAppendsAfterARestart() throws Exception {
    start();
    long id = flows.append("scene", "g", List.of(WorldTask.node("a")));
    awaitState(id, FlowState.FINISH);
    Awaitility.await("the idle stream waits without a timer")
        .atMost(WAIT)
        .until(() -> executor.getInfo(id).orElseThrow().state() == ProcedureState.WAITING);

    executor.stop();
    start();
    assertEquals(id, flows.append("scene", "g", List.of(WorldTask.node("b"))));
    Awaitility.await()
        .atMost(WAIT)
        .until(
            () -> flows.get(id).orElseThrow().node("b").orElseThrow().state() == NodeState.SUCCESS);
    assertEquals(List.of("a", "b"), world.runs());
  }

  @Test
  void aFlowSurvivesAnExecutorRestartMidRun() throws Exception {
    start();
    var gate = world.gate("B");
    var bStarted = world.started("B");
    long id = flows.submit(diamond(WorldTask.node("A"), WorldTask.node("B")));
    assertTrue(bStarted.await(20, TimeUnit.SECONDS));
    Awaitility.await()
        .atMost(WAIT)
        .until(() -> flows.get(id).orElseThrow().node("A").orElseThrow().state().isTerminal());

    executor.stop(); // interrupts B; its step is not recorded
    world.gates.remove("B");
    gate.countDown();
    start();
    FlowInfo done = flows.await(id, WAIT);
    assertEquals(FlowState.FINISH, done.state());
    done.nodes().forEach(n -> assertEquals(NodeState.SUCCESS, n.state(), n.toString()));
    assertEquals(1, world.runsOf("S"), "S ran once: " + world.runs());
    assertEquals(1, world.runsOf("A"), "A ran once: " + world.runs());
    assertEquals(2, world.runsOf("B"), "B ran again after the restart: " + world.runs());
    assertEquals(1, world.runsOf("E"));
  }
}
