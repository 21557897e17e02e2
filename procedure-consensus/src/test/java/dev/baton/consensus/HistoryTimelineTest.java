package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.google.protobuf.ByteString;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.proto.ProcedureStateProto;
import dev.baton.procedure.proto.RecordPartProto;
import dev.baton.procedure.proto.StoreRecordProto;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A procedure's history read from a log whose beginning was purged: a record that changes only some
 * of its parts, whose complete write is gone, is a step read from its head, not a corrupt record.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HistoryTimelineTest {
  private static final long PROC_ID = 7;
  private static final long TERM = 3;
  private static final long UPDATED_AT = 1_700_000_000_000L;

  /** No type is registered: a record that must be decoded to be read is reported corrupt. */
  private final ProcedureCodec codec = new ProcedureCodec(new ProcedureRegistry());

  private static StoreRecordProto.Builder record(ProcedureStateProto state) {
    ProcedureEnvelope head =
        ProcedureEnvelope.newBuilder()
            .setProcId(PROC_ID)
            .setRootProcId(PROC_ID)
            .setType("flow")
            .setState(state)
            .setLastUpdate(UPDATED_AT)
            .setResult(ByteString.copyFromUtf8("head"))
            .build();
    return StoreRecordProto.newBuilder().setProcId(PROC_ID).setData(head.toByteString());
  }

  private static StoreRecordProto delta(ProcedureStateProto state) {
    return record(state)
        .setPartsDelta(true)
        .addParts(
            RecordPartProto.newBuilder().setIndex(1).setData(ByteString.copyFromUtf8("chunk")))
        .build();
  }

  @Test
  void aDeltaWhoseCompleteWriteWasPurgedIsReadFromItsHead() {
    ProcedureHistory.Timeline timeline = new ProcedureHistory.Timeline(codec, PROC_ID);
    timeline.add(40, TERM, delta(ProcedureStateProto.RUNNABLE));
    timeline.add(41, TERM, delta(ProcedureStateProto.WAITING));

    assertEquals(2, timeline.steps().size());
    ProcedureHistory.Step first = timeline.steps().get(0);
    assertEquals(ProcedureState.RUNNABLE, first.state());
    assertNull(first.failure(), "not a corrupt record: " + first.failure());
    assertEquals(40, first.index());
    assertEquals(UPDATED_AT, first.time());
    assertEquals(ProcedureState.WAITING, timeline.steps().get(1).state());
  }

  @Test
  void aDeltaAfterItsCompleteWriteIsDecodedWithTheParts() throws Exception {
    ProcedureCodec registered = new ProcedureCodec(Work.registry());
    byte[] work =
        ProcedureCodec.assignProcId(
            registered.encodeSubmission(new Work("w"), null, UPDATED_AT), PROC_ID);
    StoreRecordProto complete =
        StoreRecordProto.newBuilder().setProcId(PROC_ID).setData(ByteString.copyFrom(work)).build();
    StoreRecordProto delta =
        complete.toBuilder()
            .setPartsDelta(true)
            .addParts(
                RecordPartProto.newBuilder().setIndex(1).setData(ByteString.copyFromUtf8("chunk")))
            .build();
    ProcedureHistory.Timeline timeline = new ProcedureHistory.Timeline(registered, PROC_ID);
    timeline.add(40, TERM, complete);
    timeline.add(41, TERM, delta);

    ProcedureHistory.Step first = timeline.steps().get(0);
    ProcedureHistory.Step second = timeline.steps().get(1);
    assertNull(second.failure(), second.failure());
    assertFalse(first.step().isEmpty(), "the decoded record names its step");
    assertEquals(first.step(), second.step(), "the delta is decoded like the complete write");
    assertEquals(ProcedureState.RUNNABLE, second.state());
  }
}
