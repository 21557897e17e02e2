package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.StoreWrite;
import dev.baton.procedure.proto.StoreBatchProto;
import dev.baton.procedure.proto.StoreRecordProto;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreRecord;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A store-write entry as the state machine reads it from the log (its fields read in place, each
 * kept record copied out): applied in order, whole or not at all, and ids only grow.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StoreWriteApplyTest {
  private static final long TERM = 3;

  private final ProcedureTable table = new ProcedureTable();
  private final CommandApplier applier = new CommandApplier(table);

  @Test
  void anEntryFromTheLogIsAppliedBatchByBatch() throws Exception {
    byte[] entry =
        write(
                StoreBatch.builder().upsert(new StoreRecord(5, new byte[] {1, 2, 3})).build(),
                StoreBatch.builder()
                    .upsert(new StoreRecord(6, new byte[] {4}))
                    .delete(5)
                    .maxProcId(40)
                    .build())
            .toByteArray();
    Command command = ProcedureStateMachine.parseCommand(UnsafeByteOperations.unsafeWrap(entry));

    CommandReply reply = applier.apply(command, TERM, 1).reply();

    assertEquals(CommandReply.KindCase.WRITTEN, reply.getKindCase());
    assertNull(table.get(5), "the second batch deletes what the first wrote");
    byte[] kept = table.get(6);
    assertArrayEquals(new byte[] {4}, kept);
    assertEquals(40, table.maxProcId());
    assertEquals(2, applier.appliedBatchCount());
  }

  @Test
  void anEntryWithAnUnusableBatchChangesNothing() throws Exception {
    StoreBatchProto badId =
        StoreBatchProto.newBuilder()
            .addUpserts(
                StoreRecordProto.newBuilder()
                    .setProcId(0)
                    .setData(ByteString.copyFrom(new byte[] {9})))
            .build();
    Command command =
        Command.newBuilder()
            .setWrite(
                StoreWrite.newBuilder()
                    .setTerm(TERM)
                    .addBatches(
                        StoreBatch.builder()
                            .upsert(new StoreRecord(7, new byte[] {7}))
                            .build()
                            .toProto()
                            .toByteString())
                    .addBatches(badId.toByteString())
                    .addBatches(ByteString.copyFromUtf8("not a batch at all")))
            .build();

    CommandReply reply = applier.apply(command, TERM, 2).reply();

    assertEquals(CommandReply.KindCase.REJECTED, reply.getKindCase());
    assertTrue(reply.getRejected().contains("unreadable store batch"), reply.getRejected());
    assertNull(table.get(7), "a batch of a refused entry was applied");
    assertEquals(0, table.maxProcId());
    assertEquals(0, applier.appliedBatchCount());
  }

  private static Command write(StoreBatch... batches) {
    StoreWrite.Builder w = StoreWrite.newBuilder().setTerm(TERM);
    for (StoreBatch b : batches) {
      w.addBatches(b.toProto().toByteString());
    }
    return Command.newBuilder().setWrite(w).build();
  }
}
