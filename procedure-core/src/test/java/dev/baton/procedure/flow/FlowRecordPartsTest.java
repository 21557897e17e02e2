package dev.baton.procedure.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.store.FileProcedureStore;
import dev.baton.procedure.store.ForwardingProcedureStore;
import dev.baton.procedure.store.InMemoryProcedureStore;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.RecordParts;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flow's record is its graph's head plus parts: the first record of a flow holds every chunk of
 * nodes, a later step writes only the chunks it changed (so its size does not follow the flow's),
 * and the flow read back from the head and the parts is the flow that was written.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FlowRecordPartsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int LARGE_FLOW_NODES = 5_000;

  /** A step changes a node or two (and their chunks): a bound that does not follow the size. */
  private static final int CHANGED_CHUNKS_BOUND = 4;

  /** Nodes of the chain that finish before the gated one. */
  private static final int FINISHED_NODES = 5;

  /** Small segments, so a run rolls and compacts them while the flow writes deltas. */
  private static final FileProcedureStore.Config SMALL_SEGMENTS =
      FileProcedureStore.Config.defaults()
          .withFsync(false)
          .withSegmentBytes(64 << 10)
          .withCompactionThreshold(2);

  @TempDir Path dir;
  private final List<ProcedureExecutor<FlowWorld>> started = new ArrayList<>();

  /** Keeps every batch handed to the store. */
  private static final class RecordingStore extends ForwardingProcedureStore {
    final List<StoreBatch> batches = new ArrayList<>();

    RecordingStore(ProcedureStore store) {
      super(store);
    }

    @Override
    public void write(StoreBatch batch) throws IOException {
      synchronized (batches) {
        batches.add(batch);
      }
      super.write(batch);
    }

    List<StoreBatch> batches() {
      synchronized (batches) {
        return new ArrayList<>(batches);
      }
    }
  }

  @AfterEach
  void stopAll() {
    started.forEach(ProcedureExecutor::stop);
  }

  private Flows<FlowWorld> start(FlowWorld world, RecordingStore store) throws Exception {
    ProcedureRegistry registry = WorldTask.registry();
    FlowRuntime<FlowWorld> runtime = WorldTask.runtime(registry);
    ProcedureExecutor<FlowWorld> ex =
        ProcedureExecutor.builder(world, store, registry).coreWorkers(2).maxWorkers(2).build();
    runtime.bind(ex);
    ex.start();
    started.add(ex);
    return new Flows<>(runtime, WAIT);
  }

  private static FlowDefinition chain(int nodes) {
    FlowDefinition.Builder b = FlowDefinition.builder().node(WorldTask.node("n0"));
    for (int i = 1; i < nodes; i++) {
      b.node(WorldTask.node("n" + i)).edge("n" + (i - 1), "n" + i);
    }
    return b.build();
  }

  /** Runs a chain until its gated node runs; returns the flow's id. */
  private long runUntilGated(FlowWorld world, RecordingStore store, int nodes) throws Exception {
    world.gate("n" + FINISHED_NODES);
    CountDownLatch gatedRuns = world.started("n" + FINISHED_NODES);
    Flows<FlowWorld> flows = start(world, store);
    long id = flows.submit(chain(nodes));
    assertTrue(gatedRuns.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the gated node never started");
    return id;
  }

  private static NodeState stateOf(FlowInfo flow, String node) {
    return flow.nodes().stream()
        .filter(n -> n.name().equals(node))
        .findFirst()
        .orElseThrow()
        .state();
  }

  private static List<StoreRecord> recordsOf(long procId, StoreBatch batch) {
    List<StoreRecord> out = new ArrayList<>();
    for (StoreRecord r : batch.upserts()) {
      if (r.procId() == procId) {
        out.add(r);
      }
    }
    return out;
  }

  @Test
  void aStepOfALargeFlowWritesOnlyTheChunksItChanged() throws Exception {
    RecordingStore store = new RecordingStore(new InMemoryProcedureStore());
    long id = runUntilGated(new FlowWorld(), store, LARGE_FLOW_NODES);

    List<StoreBatch> flowBatches = new ArrayList<>();
    for (StoreBatch b : store.batches()) {
      if (!recordsOf(id, b).isEmpty()) {
        flowBatches.add(b);
      }
    }
    assertTrue(flowBatches.size() > FINISHED_NODES, "flow steps written: " + flowBatches.size());
    StoreRecord first = recordsOf(id, flowBatches.get(0)).get(0);
    assertTrue(first.parts().isComplete(), "the first record of a flow holds all its parts");
    int largestChunk = 0;
    for (int i : first.parts().parts().keySet()) {
      largestChunk = Math.max(largestChunk, first.parts().parts().get(i).length);
    }
    int chunks = (LARGE_FLOW_NODES + NodeChunks.CHUNK - 1) / NodeChunks.CHUNK;
    assertEquals(chunks, first.parts().parts().size(), "one part per chunk of nodes");
    long bound = (long) CHANGED_CHUNKS_BOUND * largestChunk;
    assertTrue(bound * 10 < first.bytes(), "the bound is far below the whole flow: " + bound);
    for (int i = 1; i < flowBatches.size(); i++) {
      StoreBatch step = flowBatches.get(i);
      StoreRecord flow = recordsOf(id, step).get(0);
      assertTrue(flow.isDelta(), "step " + i + " wrote the flow's parts whole");
      assertTrue(
          step.estimatedBytes() < bound,
          "step "
              + i
              + " wrote "
              + step.estimatedBytes()
              + " bytes, the bound is "
              + bound
              + " (whole flow "
              + first.bytes()
              + ")");
    }
  }

  @Test
  void aFlowReadBackFromItsHeadAndPartsIsTheFlowWritten() throws Exception {
    InMemoryProcedureStore memory = new InMemoryProcedureStore();
    RecordingStore store = new RecordingStore(memory);
    FlowWorld world = new FlowWorld();
    int nodes = 3 * NodeChunks.CHUNK + 1;
    long id = runUntilGated(world, store, nodes);
    ProcedureExecutor<FlowWorld> ex = started.get(0);
    // once the flow recorded the gated node RUNNING, later steps (polls) change no node
    String gated = "n" + FINISHED_NODES;
    Awaitility.await()
        .atMost(WAIT)
        .until(() -> stateOf(Flows.view(ex.getInfo(id).orElseThrow()), gated) == NodeState.RUNNING);
    FlowInfo before = Flows.view(ex.getInfo(id).orElseThrow());
    ex.stop();

    memory.start();
    StoreRecord stored =
        memory.load().records().stream().filter(r -> r.procId() == id).findFirst().orElseThrow();
    assertFalse(stored.parts().isNone(), "the flow's record has parts");
    assertTrue(stored.data().length * 4 < stored.bytes(), "the head holds the graph's header only");
    ProcedureRegistry registry = WorldTask.registry();
    WorldTask.runtime(registry); // registers the flow types
    ProcedureInfo read = new ProcedureCodec(registry).describe(id, stored.data(), stored.parts());
    assertEquals(before, Flows.view(read));
    assertEquals(nodes, before.nodes().size());
    world.gate("n" + FINISHED_NODES).countDown();

    // a new executor on the store goes on from the parts and finishes the flow
    Flows<FlowWorld> again = start(world, store);
    FlowInfo done = again.await(id, WAIT);
    assertEquals(FlowState.FINISH, done.state());
    assertEquals(nodes, done.nodes().size());
  }

  @Test
  void aFlowsRecordIsSummarizedFromItsEnvelopeWithoutItsParts() throws Exception {
    InMemoryProcedureStore memory = new InMemoryProcedureStore();
    FlowWorld world = new FlowWorld();
    long id = runUntilGated(world, new RecordingStore(memory), 3 * NodeChunks.CHUNK + 1);
    ProcedureExecutor<FlowWorld> ex = started.get(0);
    ex.stop();
    memory.start();
    StoreRecord stored =
        memory.load().records().stream().filter(r -> r.procId() == id).findFirst().orElseThrow();
    ProcedureRegistry registry = WorldTask.registry();
    WorldTask.runtime(registry); // registers the flow types
    ProcedureCodec codec = new ProcedureCodec(registry);
    ProcedureInfo whole = codec.describe(id, stored.data(), stored.parts());
    ProcedureInfo summary = codec.summarize(id, stored.data(), stored.parts());
    assertEquals(whole.state(), summary.state());
    assertEquals(whole.stepName(), summary.stepName());
    assertEquals(whole.type(), summary.type());
    assertEquals(whole.lastUpdate(), summary.lastUpdate());
    assertEquals(whole.finished(), summary.finished());
    assertEquals(null, summary.failure());
    assertTrue(whole.stepName() != null, "a flow names its step");

    // parts that do not read: the summary never looks at them, a whole description does
    RecordParts unreadable = RecordParts.complete(Map.of(0, new byte[] {1, 2, 3}));
    assertEquals(whole.stepName(), codec.summarize(id, stored.data(), unreadable).stepName());
    assertEquals(ProcedureState.FAILED, codec.describe(id, stored.data(), unreadable).state());

    // a record written before envelopes named the step is described whole
    byte[] older =
        ProcedureEnvelope.parseFrom(stored.data()).toBuilder()
            .clearStepName()
            .build()
            .toByteArray();
    assertEquals(ProcedureState.FAILED, codec.summarize(id, older, unreadable).state());
    assertEquals(whole.stepName(), codec.summarize(id, older, stored.parts()).stepName());
  }

  @Test
  void aFlowOnAFileStoreGoesOnFromItsReplayedDeltasAfterARestart() throws Exception {
    FileProcedureStore file = new FileProcedureStore(dir, SMALL_SEGMENTS);
    FlowWorld world = new FlowWorld();
    int nodes = 3 * NodeChunks.CHUNK + 1;
    long id = runUntilGated(world, new RecordingStore(file), nodes);
    started.get(0).stop();
    file.stop();
    world.gate("n" + FINISHED_NODES).countDown();

    FileProcedureStore reopened = new FileProcedureStore(dir, SMALL_SEGMENTS);
    Flows<FlowWorld> again = start(world, new RecordingStore(reopened));
    FlowInfo done = again.await(id, WAIT);
    assertEquals(FlowState.FINISH, done.state());
    assertEquals(nodes, done.nodes().size());
    for (FlowInfo.NodeInfo n : done.nodes()) {
      assertEquals(NodeState.SUCCESS, n.state(), n.name());
    }
    started.get(1).stop();
    reopened.stop();
    assertTrue(reopened.compactionCount() + reopened.removedSegmentCount() > 0, "segments rolled");
  }
}
