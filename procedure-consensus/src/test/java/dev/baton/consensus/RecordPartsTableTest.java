package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.StoreWrite;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.proto.ProcedureStateProto;
import dev.baton.procedure.store.RecordParts;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreRecord;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.server.protocol.TermIndex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records' parts in the replicated table: store-write entries apply parts deltas (put, replace,
 * drop, keep the rest), an entry with a delta for a record the table does not hold is refused
 * whole, and a snapshot holds every record's complete parts and reads them back.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RecordPartsTableTest {
  private static final long TERM = 3;

  @TempDir Path dir;
  private final ProcedureTable table = new ProcedureTable();
  private final CommandApplier applier = new CommandApplier(table);
  private long index;

  private static StoreRecord record(long procId, String head, RecordParts parts) {
    return new StoreRecord(procId, head.getBytes(StandardCharsets.UTF_8), parts);
  }

  private static Map<Integer, byte[]> parts(String... texts) {
    Map<Integer, byte[]> out = new TreeMap<>();
    for (int i = 0; i < texts.length; i += 2) {
      out.put(Integer.parseInt(texts[i]), texts[i + 1].getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  private CommandReply apply(StoreBatch... batches) {
    StoreWrite.Builder w = StoreWrite.newBuilder().setTerm(TERM);
    for (StoreBatch b : batches) {
      w.addBatches(b.toProto().toByteString());
    }
    return applier.apply(Command.newBuilder().setWrite(w).build(), TERM, ++index).reply();
  }

  /** Every record as "head|index=text,...". */
  private static Map<Long, String> described(ProcedureTable t) {
    Map<Long, String> out = new LinkedHashMap<>();
    for (StoreRecord r : t.contents().records()) {
      StringBuilder s = new StringBuilder(new String(r.data(), StandardCharsets.UTF_8)).append('|');
      r.parts()
          .parts()
          .forEach(
              (i, b) ->
                  s.append(i)
                      .append('=')
                      .append(new String(b, StandardCharsets.UTF_8))
                      .append(','));
      out.put(r.procId(), s.toString());
    }
    return out;
  }

  @Test
  void entriesApplyPartsDeltasAndASnapshotKeepsTheCompleteParts() throws Exception {
    assertEquals(
        CommandReply.KindCase.WRITTEN,
        apply(
                StoreBatch.builder()
                    .upsert(
                        record(5, "h5", RecordParts.complete(parts("0", "a", "1", "b", "2", "c"))))
                    .upsert(record(6, "h6", RecordParts.complete(parts("3", "z"))))
                    .build())
            .getKindCase());
    assertEquals(
        CommandReply.KindCase.WRITTEN,
        apply(
                StoreBatch.builder()
                    .upsert(
                        record(
                            5, "h5'", RecordParts.delta(parts("1", "B", "4", "e"), new int[] {0})))
                    .upsert(record(6, "h6 plain", RecordParts.NONE))
                    .build())
            .getKindCase());
    Map<Long, String> expected = new LinkedHashMap<>();
    expected.put(5L, "h5'|1=B,2=c,4=e,");
    expected.put(6L, "h6 plain|");
    assertEquals(expected, described(table));

    Path file = dir.resolve("snapshot");
    try (OutputStream out = Files.newOutputStream(file)) {
      table.freeze(TermIndex.valueOf(TERM, index)).writeTo(out);
    }
    assertEquals(
        ProcedureTable.SNAPSHOT_VERSION,
        ByteBuffer.wrap(Files.readAllBytes(file)).getInt(Integer.BYTES),
        "a table with parts writes the format that holds them");
    ProcedureTable loaded = new ProcedureTable();
    loaded.loadSnapshot(file);
    assertEquals(expected, described(loaded));
    assertArrayEquals(table.get(5), loaded.get(5));
  }

  @Test
  void aTableWithoutPartsWritesTheFormatOlderNodesRead() throws Exception {
    apply(StoreBatch.builder().upsert(record(5, "h5", RecordParts.NONE)).build());
    Path file = dir.resolve("snapshot");
    try (OutputStream out = Files.newOutputStream(file)) {
      table.freeze(TermIndex.valueOf(TERM, index)).writeTo(out);
    }
    assertEquals(
        ProcedureTable.SNAPSHOT_VERSION_NO_PARTS,
        ByteBuffer.wrap(Files.readAllBytes(file)).getInt(Integer.BYTES));
    ProcedureTable loaded = new ProcedureTable();
    loaded.loadSnapshot(file);
    assertEquals(Map.of(5L, "h5|"), described(loaded));
  }

  @Test
  void anEntryWithADeltaForARecordTheTableDoesNotHoldIsRefusedWhole() {
    CommandReply reply =
        apply(
            StoreBatch.builder().upsert(record(5, "h5", RecordParts.NONE)).build(),
            StoreBatch.builder()
                .upsert(record(9, "h9", RecordParts.delta(parts("0", "x"), new int[0])))
                .build());
    assertEquals(CommandReply.KindCase.REJECTED, reply.getKindCase());
    assertTrue(reply.getRejected().contains("procedure 9"), reply.getRejected());
    assertEquals(0, table.size(), "a batch of the refused entry was applied");

    // a delta after the record was written whole in the same entry applies
    assertEquals(
        CommandReply.KindCase.WRITTEN,
        apply(
                StoreBatch.builder()
                    .upsert(record(9, "h9", RecordParts.complete(parts("0", "x"))))
                    .build(),
                StoreBatch.builder()
                    .upsert(record(9, "h9'", RecordParts.delta(parts("1", "y"), new int[0])))
                    .build())
            .getKindCase());
    assertEquals(Map.of(9L, "h9'|0=x,1=y,"), described(table));
  }

  @Test
  void aReaderGetsTheRecordWithItsResultJoinedFromHeadAndParts() throws Exception {
    byte[] head =
        ProcedureEnvelope.newBuilder()
            .setProcId(5)
            .setRootProcId(5)
            .setType("t")
            .setState(ProcedureStateProto.forNumber(ProcedureState.RUNNABLE.ordinal() + 1))
            .setResult(ByteString.copyFromUtf8("head:"))
            .build()
            .toByteArray();
    CommandReply written =
        apply(
            StoreBatch.builder()
                .upsert(new StoreRecord(5, head, RecordParts.complete(parts("2", "b", "0", "a"))))
                .build());
    assertEquals(CommandReply.KindCase.WRITTEN, written.getKindCase(), written.toString());
    apply(
        StoreBatch.builder()
            .upsert(new StoreRecord(5, head, RecordParts.delta(parts("1", "c"), new int[0])))
            .build());

    assertEquals(1, table.size(), "applied");
    ProcedureEnvelope read = ProcedureCodec.parseEnvelope(5, table.get(5));
    assertEquals("head:acb", read.getResult().toStringUtf8(), "the parts in index order");
    assertEquals(read, ProcedureCodec.parseEnvelope(5, table.copy().get(5L)));
    assertArrayEquals(head, table.contents().records().get(0).data(), "the executor gets the head");
  }
}
