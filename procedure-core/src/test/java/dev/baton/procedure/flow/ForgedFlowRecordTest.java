package dev.baton.procedure.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.store.ForwardingProcedureStore;
import dev.baton.procedure.store.InMemoryProcedureStore;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.StoreContents;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stored flow record whose state carries a forged length prefix (2 GiB) is reported corrupt when
 * a new executor starts, and every other procedure in the store recovers and finishes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ForgedFlowRecordTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** More workers than the two tasks that block on their gates. */
  private static final int WORKERS = 4;

  /** A length prefix no record can honour: the largest int, about 2 GiB. */
  private static final int FORGED_LENGTH = Integer.MAX_VALUE;

  private record Node(ProcedureExecutor<FlowWorld> executor, Flows<FlowWorld> flows) {}

  private static Node start(FlowWorld world, ProcedureStore store) throws Exception {
    ProcedureRegistry registry = WorldTask.registry();
    FlowRuntime<FlowWorld> runtime =
        WorldTask.runtime(registry).pollInterval(Duration.ofMillis(50));
    ProcedureExecutor<FlowWorld> ex =
        ProcedureExecutor.builder(world, store, registry)
            .coreWorkers(WORKERS)
            .maxWorkers(WORKERS)
            .build();
    runtime.bind(ex);
    ex.start();
    return new Node(ex, new Flows<>(runtime, WAIT));
  }

  private static FlowDefinition gated(String prefix) {
    return FlowDefinition.builder()
        .node(WorldTask.node(prefix + "S"))
        .node(WorldTask.node(prefix + "B"))
        .edge(prefix + "S", prefix + "B")
        .build();
  }

  @Test
  void aFlowRecordWithAHugeLengthPrefixIsReportedCorruptAndTheOthersRecover() throws Exception {
    FlowWorld world = new FlowWorld();
    world.gate("xB");
    world.gate("yB");
    CountDownLatch xStarted = world.started("xB"); // before the tasks can run
    CountDownLatch yStarted = world.started("yB");
    InMemoryProcedureStore memory = new InMemoryProcedureStore();
    Node first = start(world, memory);
    long forged = first.flows().submit(gated("x"));
    long intact = first.flows().submit(gated("y"));
    assertTrue(xStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS), "xB never started");
    assertTrue(yStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS), "yB never started");
    first.executor().stop();

    Node second = start(world, new ForgingStore(memory, forged));
    ProcedureInfo corrupt = second.executor().getInfo(forged).orElseThrow();
    assertEquals(ProcedureState.FAILED, corrupt.state(), corrupt::toString);
    assertTrue(corrupt.failure().contains("corrupt"), corrupt.failure());
    assertTrue(corrupt.failure().contains(String.valueOf(FORGED_LENGTH)), corrupt.failure());

    world.gate("yB").countDown();
    FlowInfo done = second.flows().await(intact, WAIT);
    assertEquals(FlowState.FINISH, done.state(), done::toString);
    second.executor().stop();
  }

  /** Hands out the stored records with one procedure's state replaced by a forged length. */
  private static final class ForgingStore extends ForwardingProcedureStore {
    private final long victim;

    ForgingStore(ProcedureStore delegate, long victim) {
      super(delegate);
      this.victim = victim;
    }

    @Override
    public StoreContents load() throws IOException {
      StoreContents real = delegate.load();
      List<StoreRecord> records = new ArrayList<>();
      for (StoreRecord r : real.records()) {
        records.add(r.procId() == victim ? forge(r) : r);
      }
      return new StoreContents(records, real.maxProcId());
    }

    private static StoreRecord forge(StoreRecord r) throws IOException {
      byte[] state = ByteBuffer.allocate(2 * Integer.BYTES).putInt(FORGED_LENGTH).array();
      ProcedureEnvelope forged =
          ProcedureEnvelope.parseFrom(r.data()).toBuilder()
              .setStateData(ByteString.copyFrom(state))
              .build();
      return new StoreRecord(r.procId(), forged.toByteArray());
    }
  }
}
