package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.Fence;
import dev.baton.consensus.proto.MetadataEntry;
import dev.baton.consensus.proto.MetadataWrite;
import dev.baton.consensus.proto.StoreWrite;
import dev.baton.consensus.proto.Submit;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.proto.ProcedureStateProto;
import dev.baton.procedure.proto.StoreBatchProto;
import dev.baton.procedure.proto.StoreRecordProto;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.server.protocol.TermIndex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Log entries and a snapshot written by an earlier version of Baton (committed under {@code
 * src/test/resources/golden/consensus-v1}) are read by today's code: the entries applied in order
 * give the replies and the table they gave then, and the snapshot loads into that same table. A
 * change that cannot read them fails here; a deliberate format change adds a converter and a new
 * golden directory, never edits this one.
 *
 * <p>{@link #main} wrote the directory: run it with the test class path and the directory as its
 * argument.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GoldenFormatsTest {
  static final String GOLDEN = "golden/consensus-v1";
  static final String ENTRIES = "entries.bin";
  static final String SNAPSHOT = "snapshot.bin";
  static final long TERM = 1;
  static final long T0 = 1_764_000_000_000L;
  static final String METADATA_KEY = "golden/database";
  static final byte[] METADATA_VALUE = "root.sg".getBytes(StandardCharsets.UTF_8);

  /** The entries of the golden log, as the first format wrote them. */
  static List<Command> entries() throws IOException {
    ProcedureCodec codec = new ProcedureCodec(Work.registry());
    byte[] submission = codec.encodeSubmission(new Work("golden"), new NonceKey(3, 4), T0);
    ProcedureEnvelope running =
        ProcedureEnvelope.parseFrom(ProcedureCodec.assignProcId(submission, 1)).toBuilder()
            .setState(ProcedureStateProto.RUNNABLE)
            .setLastUpdate(T0 + 1)
            .setTerm(TERM)
            .build();
    StoreBatchProto batch =
        StoreBatchProto.newBuilder()
            .addUpserts(StoreRecordProto.newBuilder().setProcId(1).setData(running.toByteString()))
            .setMaxProcId(1)
            .build();
    return List.of(
        Command.newBuilder()
            .setSubmit(Submit.newBuilder().addEnvelopes(ByteString.copyFrom(submission)))
            .build(),
        Command.newBuilder().setFence(Fence.newBuilder().setTerm(TERM)).build(),
        Command.newBuilder()
            .setWrite(
                StoreWrite.newBuilder().setTerm(TERM).setEpoch(1).addBatches(batch.toByteString()))
            .build(),
        Command.newBuilder()
            .setMetadata(
                MetadataWrite.newBuilder()
                    .setTerm(TERM)
                    .setEpoch(1)
                    .addPuts(
                        MetadataEntry.newBuilder()
                            .setKey(METADATA_KEY)
                            .setValue(ByteString.copyFrom(METADATA_VALUE))))
            .build());
  }

  /** Applies {@code entries} to {@code table} from index 1; returns the replies. */
  static List<CommandReply> apply(ProcedureTable table, List<Command> entries) {
    CommandApplier applier = new CommandApplier(table);
    List<CommandReply> replies = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      replies.add(applier.apply(entries.get(i), TERM, i + 1).reply());
    }
    return replies;
  }

  /** Writes the golden entries and snapshot into {@code args[0]}. */
  public static void main(String[] args) throws IOException {
    write(Path.of(args[0]), entries());
  }

  /** Writes {@code entries} and the snapshot of the table they make into directory {@code out}. */
  static void write(Path out, List<Command> entries) throws IOException {
    Files.createDirectories(out);
    try (OutputStream file = Files.newOutputStream(out.resolve(ENTRIES))) {
      for (Command c : entries) {
        c.writeDelimitedTo(file);
      }
    }
    ProcedureTable table = new ProcedureTable();
    apply(table, entries);
    try (OutputStream file = Files.newOutputStream(out.resolve(SNAPSHOT))) {
      table.freeze(TermIndex.valueOf(TERM, entries.size())).writeTo(file);
    }
  }

  /** The file {@code name} of the golden directory {@code dir} on the test class path. */
  static Path golden(String dir, String name) throws URISyntaxException {
    return Path.of(GoldenFormatsTest.class.getClassLoader().getResource(dir + "/" + name).toURI());
  }

  /** The entries of the golden directory {@code dir}, in order. */
  static List<Command> readEntries(String dir) throws IOException, URISyntaxException {
    List<Command> read = new ArrayList<>();
    try (InputStream in = Files.newInputStream(golden(dir, ENTRIES))) {
      for (Command c = Command.parseDelimitedFrom(in);
          c != null;
          c = Command.parseDelimitedFrom(in)) {
        read.add(c);
      }
    }
    return read;
  }

  @Test
  void theFirstFormatsEntriesAndSnapshotAreRead() throws Exception {
    List<Command> read = readEntries(GOLDEN);
    assertEquals(4, read.size());
    ProcedureTable applied = new ProcedureTable();
    List<CommandReply> replies = apply(applied, read);
    assertEquals(1, replies.get(0).getSubmitted().getResults(0).getProcId());
    assertEquals(1, replies.get(1).getEpoch());
    assertTrue(replies.get(2).getWritten(), replies.get(2).toString());
    assertTrue(replies.get(3).getWritten(), replies.get(3).toString());
    assertEquals(1, applied.procIdOf(new NonceKey(3, 4)));
    ProcedureEnvelope record = ProcedureEnvelope.parseFrom(applied.get(1));
    assertEquals(ProcedureStateProto.RUNNABLE, record.getState());
    assertEquals("Work", record.getType());
    assertEquals(1, applied.liveRootCount());

    ProcedureTable loaded = new ProcedureTable();
    loaded.loadSnapshot(golden(GOLDEN, SNAPSHOT));
    Map<Long, byte[]> fromLog = applied.copy();
    Map<Long, byte[]> fromSnapshot = loaded.copy();
    assertEquals(fromLog.keySet(), fromSnapshot.keySet());
    for (long id : fromLog.keySet()) {
      assertArrayEquals(fromLog.get(id), fromSnapshot.get(id), "record " + id);
    }
    assertEquals(applied.maxProcId(), loaded.maxProcId());
    assertArrayEquals(METADATA_VALUE, loaded.metadata(METADATA_KEY).get(METADATA_KEY));
    assertEquals(1, loaded.epochOf(TERM));
    assertEquals(1, loaded.procIdOf(new NonceKey(3, 4)));
    assertEquals(1, loaded.liveRootCount());
  }
}
