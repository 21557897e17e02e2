package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.Fence;
import dev.baton.consensus.proto.StoreWrite;
import dev.baton.consensus.proto.Submit;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.proto.ProcedureStateProto;
import dev.baton.procedure.proto.StoreBatchProto;
import dev.baton.procedure.store.RecordParts;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Log entries and a snapshot of the format that added records' parts (store batch format 2,
 * snapshot format 5; committed under {@code src/test/resources/golden/consensus-v2}) are read by
 * today's code: a batch with a record's complete parts, then one with a delta that replaces, adds
 * and drops parts, give the parts they gave then, and the snapshot loads into that same table. A
 * change that cannot read them fails here; a deliberate format change adds a converter and a new
 * golden directory, never edits this one.
 *
 * <p>{@link #main} wrote the directory: run it with the test class path and the directory as its
 * argument.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GoldenPartsFormatsTest {
  static final String GOLDEN = "golden/consensus-v2";
  static final long TERM = GoldenFormatsTest.TERM;
  static final long PROC_ID = 1;
  static final long T0 = 1_764_000_000_000L;

  /** The record's parts after both batches: part 1 replaced, part 2 dropped, part 3 added. */
  static final Map<Integer, String> FINAL_PARTS = Map.of(0, "head-0", 1, "one-v2", 3, "three");

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static ByteString batch(byte[] head, RecordParts parts) {
    return StoreBatch.builder()
        .upsert(new StoreRecord(PROC_ID, head, parts))
        .maxProcId(PROC_ID)
        .build()
        .toProto()
        .toByteString();
  }

  /** The entries of the golden log, as the format with parts wrote them. */
  static List<Command> entries() throws IOException {
    ProcedureCodec codec = new ProcedureCodec(Work.registry());
    byte[] submission = codec.encodeSubmission(new Work("golden-parts"), new NonceKey(5, 6), T0);
    byte[] running =
        ProcedureEnvelope.parseFrom(ProcedureCodec.assignProcId(submission, PROC_ID)).toBuilder()
            .setState(ProcedureStateProto.RUNNABLE)
            .setLastUpdate(T0 + 1)
            .setTerm(TERM)
            .build()
            .toByteArray();
    Map<Integer, byte[]> complete = new TreeMap<>();
    complete.put(0, utf8("head-0"));
    complete.put(1, utf8("one-v1"));
    complete.put(2, utf8("two"));
    Map<Integer, byte[]> put = new TreeMap<>();
    put.put(1, utf8("one-v2"));
    put.put(3, utf8("three"));
    return List.of(
        Command.newBuilder()
            .setSubmit(Submit.newBuilder().addEnvelopes(ByteString.copyFrom(submission)))
            .build(),
        Command.newBuilder().setFence(Fence.newBuilder().setTerm(TERM)).build(),
        Command.newBuilder()
            .setWrite(
                StoreWrite.newBuilder()
                    .setTerm(TERM)
                    .setEpoch(1)
                    .addBatches(batch(running, RecordParts.complete(complete))))
            .build(),
        Command.newBuilder()
            .setWrite(
                StoreWrite.newBuilder()
                    .setTerm(TERM)
                    .setEpoch(1)
                    .addBatches(batch(running, RecordParts.delta(put, new int[] {2}))))
            .build());
  }

  /** Writes the golden entries and snapshot into {@code args[0]}. */
  public static void main(String[] args) throws IOException {
    GoldenFormatsTest.write(Path.of(args[0]), entries());
  }

  private static void assertFinalParts(RecordParts parts) {
    assertTrue(parts.isComplete(), parts.toString());
    assertEquals(FINAL_PARTS.keySet(), parts.parts().keySet());
    for (Map.Entry<Integer, String> part : FINAL_PARTS.entrySet()) {
      assertArrayEquals(
          utf8(part.getValue()), parts.parts().get(part.getKey()), "part " + part.getKey());
    }
  }

  @Test
  void thePartsFormatsEntriesAndSnapshotAreRead() throws Exception {
    List<Command> read = GoldenFormatsTest.readEntries(GOLDEN);
    assertEquals(4, read.size());
    for (int i = 2; i < read.size(); i++) {
      StoreBatchProto batch = StoreBatchProto.parseFrom(read.get(i).getWrite().getBatches(0));
      assertEquals(StoreBatch.FORMAT_VERSION, batch.getFormatVersion(), "entry " + i);
    }
    ProcedureTable applied = new ProcedureTable();
    List<CommandReply> replies = GoldenFormatsTest.apply(applied, read);
    assertEquals(PROC_ID, replies.get(0).getSubmitted().getResults(0).getProcId());
    assertTrue(replies.get(2).getWritten(), replies.get(2).toString());
    assertTrue(replies.get(3).getWritten(), replies.get(3).toString());
    assertFinalParts(applied.partsOf(PROC_ID));

    ProcedureTable loaded = new ProcedureTable();
    loaded.loadSnapshot(GoldenFormatsTest.golden(GOLDEN, GoldenFormatsTest.SNAPSHOT));
    assertFinalParts(loaded.partsOf(PROC_ID));
    assertArrayEquals(applied.get(PROC_ID), loaded.get(PROC_ID));
    assertEquals(1, loaded.procIdOf(new NonceKey(5, 6)));
    assertEquals(applied.maxProcId(), loaded.maxProcId());
    assertEquals(1, loaded.liveRootCount());
  }
}
