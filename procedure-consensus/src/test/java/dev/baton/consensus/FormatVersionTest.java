package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.Fence;
import dev.baton.consensus.proto.StoreWrite;
import dev.baton.consensus.proto.Submit;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureCodecException;
import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreRecord;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.server.protocol.TermIndex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The format versions of a procedure record, a log entry and a snapshot: what is written today
 * carries its version, and one of a newer version is refused with an error that names it, changing
 * nothing (the record is not decoded, the entry not applied, the snapshot file not touched).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FormatVersionTest {
  private static final long TERM = 1;
  private static final long T0 = 1_764_000_000_000L;

  @TempDir Path dir;

  private final ProcedureCodec codec = new ProcedureCodec(Work.registry());

  private byte[] submission() throws Exception {
    return codec.encodeSubmission(new Work("format"), new NonceKey(7, 1), T0);
  }

  @Test
  void aRecordOfANewerFormatIsRefusedNamingItsVersion() throws Exception {
    byte[] record = ProcedureCodec.assignProcId(submission(), 1);
    ProcedureEnvelope env = ProcedureCodec.parseEnvelope(1, record);
    assertEquals(ProcedureCodec.FORMAT_VERSION, env.getFormatVersion());

    int newer = ProcedureCodec.FORMAT_VERSION + 1;
    byte[] future = env.toBuilder().setFormatVersion(newer).build().toByteArray();
    ProcedureCodecException e =
        assertThrows(ProcedureCodecException.class, () -> codec.decode(1, future));
    assertTrue(
        e.getMessage().contains("record of procedure 1 has format version " + newer),
        e.getMessage());
  }

  @Test
  void aLogEntryOfANewerFormatIsNotAppliedAndSaysWhy() throws Exception {
    ProcedureTable table = new ProcedureTable();
    CommandApplier applier = new CommandApplier(table);
    int newer = CommandApplier.LOG_FORMAT_VERSION + 1;
    Command future =
        Command.newBuilder()
            .setSubmit(Submit.newBuilder().addEnvelopes(ByteString.copyFrom(submission())))
            .setFormatVersion(newer)
            .build();
    CommandReply reply = applier.apply(future, TERM, 1).reply();
    assertTrue(
        reply.getRejected().contains("entry 1 has log format version " + newer), reply.toString());
    assertEquals(0, table.liveRootCount());
    assertEquals(0, table.procIdOf(new NonceKey(7, 1)));

    // the same entry in today's format is applied
    CommandReply today =
        applier.apply(future.toBuilder().clearFormatVersion().build(), TERM, 2).reply();
    assertEquals(1, today.getSubmitted().getResults(0).getProcId(), today.toString());
  }

  @Test
  void aStoreBatchOfANewerFormatIsNotWritten() throws Exception {
    ProcedureTable table = new ProcedureTable();
    CommandApplier applier = new CommandApplier(table);
    applier.apply(Command.newBuilder().setFence(Fence.newBuilder().setTerm(TERM)).build(), TERM, 1);
    int newer = StoreBatch.FORMAT_VERSION + 1;
    byte[] batch =
        StoreBatch.builder()
            .upsert(new StoreRecord(5, new byte[] {1}))
            .build()
            .toProto()
            .toBuilder()
            .setFormatVersion(newer)
            .build()
            .toByteArray();
    Command write =
        Command.newBuilder()
            .setWrite(
                StoreWrite.newBuilder()
                    .setTerm(TERM)
                    .setEpoch(1)
                    .addBatches(ByteString.copyFrom(batch)))
            .build();
    CommandReply reply = applier.apply(write, TERM, 2).reply();
    assertTrue(
        reply.getRejected().contains("store batch format version " + newer), reply.toString());
    assertEquals(null, table.get(5));
  }

  @Test
  void aSnapshotOfANewerFormatIsRefusedAndLeftAsItWas() throws Exception {
    Path file = dir.resolve("snapshot");
    try (var out = Files.newOutputStream(file)) {
      new ProcedureTable().freeze(TermIndex.valueOf(TERM, 1)).writeTo(out);
    }
    byte[] bytes = Files.readAllBytes(file);
    ByteBuffer header = ByteBuffer.wrap(bytes);
    assertEquals(ProcedureTable.SNAPSHOT_MAGIC, header.getInt(0));
    assertEquals(ProcedureTable.SNAPSHOT_VERSION_NO_PARTS, header.getInt(Integer.BYTES));
    int newer = ProcedureTable.SNAPSHOT_VERSION + 1;
    header.putInt(Integer.BYTES, newer);
    Files.write(file, bytes);

    CorruptSnapshotException e =
        assertThrows(CorruptSnapshotException.class, () -> new ProcedureTable().loadSnapshot(file));
    assertTrue(e.getMessage().contains("snapshot format version " + newer), e.getMessage());
    assertArrayEquals(bytes, Files.readAllBytes(file));
  }
}
