package dev.baton.procedure.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.store.InMemoryProcedureStore;
import dev.baton.procedure.testing.CrashInjectingStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The executor crashes before or after the k-th store write of a flow run, for every k until a run
 * has no k-th write; a new executor (with a new registry and runtime, as a new process) on the same
 * store finishes the flow. The flow never starts a second task for a node (its nonces), and every
 * node ends SUCCESS, including one that needed a retry.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FlowCrashRecoveryTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int MAX_WRITES = 500;

  /** A diamond flow with a retry makes more writes than this (19 when written). */
  private static final int MIN_CRASHES = 10;

  private record Node(ProcedureExecutor<FlowWorld> executor, Flows<FlowWorld> flows) {}

  /** An executor with a new registry and runtime, as a new process would have. */
  private static Node start(FlowWorld world, CrashInjectingStore store) throws Exception {
    ProcedureRegistry registry = WorldTask.registry();
    FlowRuntime<FlowWorld> runtime =
        WorldTask.runtime(registry).pollInterval(Duration.ofMillis(50));
    ProcedureExecutor<FlowWorld> ex =
        ProcedureExecutor.builder(world, store, registry).coreWorkers(2).maxWorkers(2).build();
    runtime.bind(ex);
    ex.start();
    return new Node(ex, new Flows<>(runtime, WAIT));
  }

  private static FlowDefinition diamond() {
    return FlowDefinition.builder()
        .node(WorldTask.node("S"))
        .node(WorldTask.node("A").withRetries(1, 1))
        .node(WorldTask.node("B"))
        .node(WorldTask.node("E"))
        .edge("S", "A")
        .edge("S", "B")
        .edge("A", "E")
        .edge("B", "E")
        .build();
  }

  @ParameterizedTest
  @EnumSource(CrashInjectingStore.Mode.class)
  void aFlowRecoversFromACrashAtEveryStoreWrite(CrashInjectingStore.Mode mode) throws Exception {
    int crashes = 0;
    for (int k = 0; k < MAX_WRITES; k++) {
      FlowWorld world = new FlowWorld();
      world.fail("A", 1);
      InMemoryProcedureStore memory = new InMemoryProcedureStore();
      CrashInjectingStore first = new CrashInjectingStore(memory);
      first.arm(mode, k);
      Node node = start(world, first);
      ProcedureExecutor<FlowWorld> ex = node.executor();
      long id;
      try {
        id = node.flows().submit(diamond());
      } catch (RuntimeException crashedOnSubmit) {
        ex.stop();
        crashes++;
        continue; // nothing was acknowledged
      }
      ProcedureExecutor<FlowWorld> watched = ex;
      Awaitility.await("flow " + id + " finished or the executor crashed (k=" + k + ")")
          .atMost(WAIT)
          .until(
              () ->
                  !watched.isRunning()
                      || watched.failure().isPresent()
                      || watched.getInfo(id).map(ProcedureInfo::finished).orElse(false));
      boolean crashed = !ex.isRunning() || ex.failure().isPresent();
      ex.stop();
      if (!crashed) {
        assertTrue(crashes >= MIN_CRASHES, "crashes at " + crashes + " write positions only");
        return; // the run had fewer than k+1 writes: every position was covered
      }
      crashes++;
      Node restarted = start(world, new CrashInjectingStore(memory));
      ProcedureExecutor<FlowWorld> second = restarted.executor();
      try {
        FlowInfo done;
        try {
          done = restarted.flows().await(id, WAIT);
        } catch (java.util.concurrent.TimeoutException e) {
          throw new AssertionError(
              "k=" + k + ": " + restarted.flows().get(id) + " procedures " + second.list(), e);
        }
        assertEquals(FlowState.FINISH, done.state(), "k=" + k);
        int attempts = 0;
        for (FlowInfo.NodeInfo n : done.nodes()) {
          assertEquals(NodeState.SUCCESS, n.state(), "k=" + k + ": " + n);
          // A's failing attempt may have run unrecorded before the crash; it then succeeds at once
          assertTrue(n.attempts() == 1 || n.name().equals("A") && n.attempts() == 2, "k=" + k + n);
          attempts += n.attempts();
        }
        List<ProcedureInfo> tasks =
            second.list().stream().filter(i -> i.type().equals(WorldTask.TYPE)).toList();
        assertEquals(
            attempts, tasks.size(), "one task per node and attempt (k=" + k + "): " + tasks);
      } finally {
        second.stop();
      }
    }
    throw new AssertionError("a flow run took more than " + MAX_WRITES + " writes");
  }
}
