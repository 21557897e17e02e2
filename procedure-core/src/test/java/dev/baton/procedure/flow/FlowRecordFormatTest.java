package dev.baton.procedure.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.proto.ProcedureEnvelope;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A flow record carries its graph once, as its result, whatever the flow's size; a record written
 * before (the graph in its state as well, length-prefixed) still reads back to the same flow.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FlowRecordFormatTest {
  private static final long PROC_ID = 7;
  private static final long SUBMITTED = 1_000;

  private final ProcedureRegistry registry = WorldTask.registry();
  private final FlowRuntime<FlowWorld> runtime = WorldTask.runtime(registry);
  private final ProcedureCodec codec = new ProcedureCodec(registry);

  private static FlowDefinition chain(int nodes) {
    FlowDefinition.Builder b = FlowDefinition.builder().node(WorldTask.node("n0"));
    for (int i = 1; i < nodes; i++) {
      b.node(WorldTask.node("n" + i)).edge("n" + (i - 1), "n" + i);
    }
    return b.build();
  }

  private byte[] record(FlowDefinition def) throws Exception {
    FlowProcedure<FlowWorld> flow = FlowProcedure.finite(runtime, def);
    return ProcedureCodec.assignProcId(codec.encodeSubmission(flow, null, SUBMITTED), PROC_ID);
  }

  private static List<String> names(FlowInfo info) {
    List<String> names = new ArrayList<>();
    for (FlowInfo.NodeInfo n : info.nodes()) {
      names.add(n.name());
    }
    return names;
  }

  @Test
  void theGraphIsStoredOnceAsTheResultWhateverTheFlowsSize() throws Exception {
    ProcedureEnvelope small = ProcedureCodec.parseEnvelope(PROC_ID, record(chain(10)));
    ProcedureEnvelope large = ProcedureCodec.parseEnvelope(PROC_ID, record(chain(1_000)));
    assertEquals(small.getStateData().size(), large.getStateData().size());
    assertTrue(
        large.getResult().size() > 10 * small.getResult().size(),
        "the result holds the graph: " + large.getResult().size());
    FlowInfo view = FlowProcedure.view(codec.describe(PROC_ID, record(chain(1_000))));
    assertEquals(1_000, view.nodes().size());
  }

  @Test
  void aRecordWithTheGraphInItsStateReadsBackToTheSameFlow() throws Exception {
    FlowDefinition def = chain(20);
    ProcedureEnvelope current = ProcedureCodec.parseEnvelope(PROC_ID, record(def));
    byte[] graph = current.getResult().toByteArray();
    ByteArrayOutputStream state = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(state)) {
      out.writeInt(graph.length);
      out.write(graph);
    }
    byte[] earlier =
        current.toBuilder()
            .setStateData(ByteString.copyFrom(state.toByteArray()))
            .build()
            .toByteArray();

    ProcedureInfo info = codec.describe(PROC_ID, earlier);
    assertEquals(null, info.failure(), "the earlier record did not read back");
    FlowInfo view = FlowProcedure.view(info);
    assertEquals(names(FlowProcedure.view(codec.describe(PROC_ID, record(def)))), names(view));
    // written again, it takes the current form
    byte[] again = codec.encode(codec.decode(PROC_ID, earlier));
    assertEquals(
        current.getStateData(), ProcedureCodec.parseEnvelope(PROC_ID, again).getStateData());
    assertEquals(current.getResult(), ProcedureCodec.parseEnvelope(PROC_ID, again).getResult());
  }

  @Test
  void aRecordWithTheGraphNeitherInItsStateNorAsItsResultIsCorrupt() throws Exception {
    ProcedureEnvelope current = ProcedureCodec.parseEnvelope(PROC_ID, record(chain(3)));
    byte[] stripped = current.toBuilder().clearResult().build().toByteArray();
    ProcedureInfo info = codec.describe(PROC_ID, stripped);
    assertTrue(
        info.failure() != null && info.failure().contains("neither in its state nor"),
        String.valueOf(info.failure()));
  }
}
