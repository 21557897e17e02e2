package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.proto.ProcedureStateProto;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class LiveRootsTest {

  private static ProcedureEnvelope root(long id, ProcedureStateProto state) {
    return ProcedureEnvelope.newBuilder()
        .setProcId(id)
        .setRootProcId(id)
        .setType("Work")
        .setState(state)
        .setStateData(ByteString.copyFrom(new byte[64]))
        .build();
  }

  @Test
  void theStateIsReadFromTheRecordAlone() {
    assertTrue(LiveRoots.isFinished(root(1, ProcedureStateProto.SUCCESS).toByteArray()));
    assertTrue(LiveRoots.isFinished(root(1, ProcedureStateProto.ROLLEDBACK).toByteArray()));
    assertFalse(LiveRoots.isFinished(root(1, ProcedureStateProto.FAILED).toByteArray()));
    assertFalse(LiveRoots.isFinished(root(1, ProcedureStateProto.RUNNABLE).toByteArray()));
    assertFalse(
        LiveRoots.isFinished(ProcedureEnvelope.newBuilder().setProcId(1).build().toByteArray()));
    assertTrue(LiveRoots.isFinished(new byte[] {(byte) 0xff, (byte) 0xff}), "unreadable");
  }

  @Test
  void rootsLeaveWhenTheyFinishOrAreDeleted() {
    LiveRoots live = new LiveRoots();
    live.submitted(1);
    live.submitted(2);
    live.submitted(3);
    live.written(1, root(1, ProcedureStateProto.WAITING).toByteArray());
    live.written(7, root(7, ProcedureStateProto.SUCCESS).toByteArray()); // not a tracked root
    assertEquals(3, live.count());
    live.written(1, root(1, ProcedureStateProto.SUCCESS).toByteArray());
    live.deleted(2);
    assertEquals(1, live.count());
  }

  @Test
  void aLoadedTableCountsItsUnfinishedRootsOnly() {
    LiveRoots live = new LiveRoots();
    live.loaded(root(1, ProcedureStateProto.RUNNABLE));
    live.loaded(root(2, ProcedureStateProto.SUCCESS));
    live.loaded(ProcedureEnvelope.newBuilder().setProcId(3).setRootProcId(1).build()); // a child
    assertEquals(1, live.count());
  }
}
