package dev.baton.procedure.store;

import static dev.baton.procedure.store.StoreFiles.contents;
import static dev.baton.procedure.store.StoreFiles.record;
import static dev.baton.procedure.store.StoreFiles.upserts;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.proto.StoreBatchProto;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file store's format version: what it writes carries {@link StoreBatch#FORMAT_VERSION}; a
 * whole record of a newer version, even at the end of the last segment where a torn tail would be
 * cut off, stops {@code start()} with an error naming the version, the file and the offset, and
 * leaves the files as they were; once that record is gone (the newer Baton's data moved aside), the
 * store opens with everything before it.
 */
@Timeout(60)
class NewerStoreFormatTest {
  private static final FileProcedureStore.Config CONFIG =
      FileProcedureStore.Config.defaults().withFsync(false);

  private static final int NEWER = StoreBatch.FORMAT_VERSION + 1;

  @TempDir Path dir;

  @Test
  void aRecordOfANewerVersionStopsTheStoreAndIsNotCutOff() throws Exception {
    FileProcedureStore store = new FileProcedureStore(dir, CONFIG);
    store.start();
    store.write(upserts(record(1, "one"), record(2, "two")));
    store.stop();
    Path segment = StoreFiles.lastSegment(dir);
    long before = Files.size(segment);
    assertEquals(
        StoreBatch.FORMAT_VERSION_NO_PARTS,
        StoreBatchProto.parseFrom(payloadAt(segment, 0)).getFormatVersion(),
        "a written batch without parts carries the format version readers of format 1 read");

    StoreBatchProto newer =
        upserts(record(3, "three")).toProto().toBuilder().setFormatVersion(NEWER).build();
    byte[] payload = newer.toByteArray();
    ByteBuffer framed = ByteBuffer.allocate(SegmentFormat.HEADER_BYTES + payload.length);
    framed.putInt(payload.length).putInt(SegmentFormat.crc(payload, 0, payload.length));
    framed.put(payload).flip();
    try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.APPEND)) {
      ch.write(framed);
    }
    byte[] withNewer = Files.readAllBytes(segment);

    FileProcedureStore again = new FileProcedureStore(dir, CONFIG);
    NewerStoreFormatException e = assertThrows(NewerStoreFormatException.class, again::start);
    again.stop();
    assertEquals(NEWER, e.version());
    assertTrue(e.getMessage().contains("store format version " + NEWER), e.getMessage());
    assertTrue(e.getMessage().contains(segment + " at offset " + before), e.getMessage());
    assertArrayEquals(withNewer, Files.readAllBytes(segment), "the segment is left as it was");

    try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
      ch.truncate(before);
    }
    FileProcedureStore older = new FileProcedureStore(dir, CONFIG);
    older.start();
    assertEquals(Map.of(1L, "one", 2L, "two"), contents(older));
    older.stop();
  }

  /** The payload of the record at {@code offset}. */
  private static byte[] payloadAt(Path segment, int offset) throws IOException {
    ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(segment));
    int length = all.getInt(offset);
    byte[] payload = new byte[length];
    all.get(offset + SegmentFormat.HEADER_BYTES, payload);
    return payload;
  }
}
