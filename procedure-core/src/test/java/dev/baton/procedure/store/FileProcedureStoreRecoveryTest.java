package dev.baton.procedure.store;

import static dev.baton.procedure.store.StoreFiles.contents;
import static dev.baton.procedure.store.StoreFiles.record;
import static dev.baton.procedure.store.StoreFiles.upserts;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery of {@link FileProcedureStore} from damaged files: a torn tail of the last segment is
 * truncated and everything before it kept; a bad record followed by valid ones, a bad record in an
 * older segment, or a missing segment fails {@code start()} with a {@link CorruptStoreException}
 * naming the file and offset, and changes nothing on disk.
 */
@Timeout(60)
class FileProcedureStoreRecoveryTest {
  private static final FileProcedureStore.Config CONFIG =
      FileProcedureStore.Config.defaults().withFsync(false);

  @TempDir Path dir;
  private final List<ProcedureStore> opened = new ArrayList<>();

  private FileProcedureStore store(FileProcedureStore.Config config) {
    FileProcedureStore store = new FileProcedureStore(dir, config);
    opened.add(store);
    return store;
  }

  private FileProcedureStore open() throws IOException {
    FileProcedureStore store = store(CONFIG);
    store.start();
    return store;
  }

  @AfterEach
  void stopAll() {
    opened.forEach(ProcedureStore::stop);
  }

  /** Writes records 1..n, one batch each; returns the segment size after each write. */
  private long[] writeRecords(int n) throws IOException {
    FileProcedureStore store = open();
    long[] sizeAfter = new long[n + 1];
    for (int id = 1; id <= n; id++) {
      store.write(upserts(record(id, "record " + id)));
      sizeAfter[id] = Files.size(StoreFiles.lastSegment(dir));
    }
    store.stop();
    return sizeAfter;
  }

  private static Map<Long, String> records(int from, int to) {
    Map<Long, String> out = new TreeMap<>();
    for (long id = from; id <= to; id++) {
      out.put(id, "record " + id);
    }
    return out;
  }

  /** Starts a store over a torn tail; checks it was cut at {@code goodEnd} and keeps working. */
  private void assertTornTailTruncated(long goodEnd, Map<Long, String> intact) throws IOException {
    Path segment = StoreFiles.lastSegment(dir);
    FileProcedureStore store = open();
    assertEquals(intact, contents(store));
    assertEquals(goodEnd, Files.size(segment), "torn tail not truncated to the last good record");
    store.write(upserts(record(50, "after the tear")));
    store.stop();

    FileProcedureStore fresh = open();
    Map<Long, String> expected = new TreeMap<>(intact);
    expected.put(50L, "after the tear");
    assertEquals(expected, contents(fresh));
    assertEquals(50, fresh.load().maxProcId());
  }

  @Test
  void garbageAppendedToTheLastSegmentIsTruncated() throws Exception {
    long[] sizeAfter = writeRecords(3);
    byte[] garbage = new byte[37];
    Arrays.fill(garbage, (byte) 0xA5);
    StoreFiles.append(StoreFiles.lastSegment(dir), garbage);
    assertTornTailTruncated(sizeAfter[3], records(1, 3));
  }

  @Test
  void zerosAppendedToTheLastSegmentAreTruncated() throws Exception {
    // what a file system may leave when the size was extended but the data never written
    long[] sizeAfter = writeRecords(3);
    StoreFiles.append(StoreFiles.lastSegment(dir), new byte[4096]);
    assertTornTailTruncated(sizeAfter[3], records(1, 3));
  }

  @Test
  void aPartiallyAppendedRecordIsTruncated() throws Exception {
    long[] sizeAfter = writeRecords(3);
    byte[] frame = StoreFiles.frame(upserts(record(4, "record 4, never acknowledged")));
    StoreFiles.append(StoreFiles.lastSegment(dir), Arrays.copyOf(frame, frame.length / 2));
    assertTornTailTruncated(sizeAfter[3], records(1, 3));
  }

  @Test
  void aLargeRecordCutShortIsTruncatedWithoutScanningIt() throws Exception {
    // half of a 1 MiB record of small ints, each a plausible record length: recovery truncates
    // the cut record rather than scan its bytes for a next record (the scan could hit its limit)
    long[] sizeAfter = writeRecords(3);
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
      for (int i = 0; i < (1 << 18); i++) {
        out.writeInt(i % 64);
      }
    }
    byte[] frame =
        StoreFiles.frame(
            upserts(new dev.baton.procedure.store.StoreRecord(4, bytes.toByteArray())));
    StoreFiles.append(StoreFiles.lastSegment(dir), Arrays.copyOf(frame, frame.length / 2));
    assertTornTailTruncated(sizeAfter[3], records(1, 3));
  }

  @Test
  void aHeaderCutShortIsTruncated() throws Exception {
    long[] sizeAfter = writeRecords(3);
    byte[] frame = StoreFiles.frame(upserts(record(4, "record 4")));
    StoreFiles.append(StoreFiles.lastSegment(dir), Arrays.copyOf(frame, 5));
    assertTornTailTruncated(sizeAfter[3], records(1, 3));
  }

  @Test
  void aLastSegmentCutInTheMiddleOfARecordIsTruncated() throws Exception {
    long[] sizeAfter = writeRecords(3);
    StoreFiles.truncate(StoreFiles.lastSegment(dir), sizeAfter[2] + 10);
    assertTornTailTruncated(sizeAfter[2], records(1, 2));
  }

  @Test
  void aLastRecordWithABadChecksumAndNothingAfterItIsATornTail() throws Exception {
    long[] sizeAfter = writeRecords(3);
    StoreFiles.flipByte(StoreFiles.lastSegment(dir), sizeAfter[3] - 1);
    assertTornTailTruncated(sizeAfter[2], records(1, 2));
  }

  @Test
  void aTornTailInANewlyRolledSegmentKeepsTheOlderSegments() throws Exception {
    FileProcedureStore.Config small = CONFIG.withSegmentBytes(128);
    FileProcedureStore store = store(small);
    store.start();
    for (int id = 1; id <= 10; id++) {
      store.write(upserts(record(id, "record " + id)));
    }
    store.stop();
    List<Path> segments = StoreFiles.segments(dir);
    assertTrue(segments.size() > 2, "segments: " + segments);
    Path last = segments.get(segments.size() - 1);
    // the whole last segment was one torn write: its first record is cut
    StoreFiles.truncate(last, 6);

    FileProcedureStore again = store(small);
    again.start();
    Map<Long, String> left = contents(again);
    int kept = left.size();
    assertTrue(kept >= 1 && kept < 10, "records: " + left);
    assertEquals(records(1, kept), left);
    assertEquals(kept, again.load().maxProcId());
    // the torn record is gone; the emptied segment declares the highest id again
    assertEquals(
        SegmentFormat.encodeMaxProcId(kept).remaining(),
        Files.size(last),
        "the torn record was not truncated");
    again.write(upserts(record(kept + 1, "record " + (kept + 1))));
    again.stop();

    FileProcedureStore fresh = store(small);
    fresh.start();
    assertEquals(records(1, kept + 1), contents(fresh));
  }

  @Test
  void aBadRecordFollowedByValidRecordsFailsStartAndChangesNothing() throws Exception {
    long[] sizeAfter = writeRecords(4);
    Path segment = StoreFiles.lastSegment(dir);
    // a payload byte of record 2: its checksum no longer matches, records 3 and 4 are valid
    StoreFiles.flipByte(segment, sizeAfter[1] + SegmentFormat.HEADER_BYTES + 3);
    assertCorruptAt(segment, sizeAfter[1], "checksum");
  }

  @Test
  void aBadLengthFollowedByValidRecordsFailsStart() throws Exception {
    long[] sizeAfter = writeRecords(4);
    Path segment = StoreFiles.lastSegment(dir);
    // the high byte of record 2's length: it now runs past the end of the file
    StoreFiles.flipByte(segment, sizeAfter[1]);
    assertCorruptAt(segment, sizeAfter[1], "followed by a valid record");
  }

  @Test
  void aShortenedLengthFollowedByValidRecordsFailsStart() throws Exception {
    long[] sizeAfter = writeRecords(4);
    Path segment = StoreFiles.lastSegment(dir);
    // the low byte of record 2's length: it now ends inside its own payload
    byte[] content = Files.readAllBytes(segment);
    int lowByte = Math.toIntExact(sizeAfter[1]) + 3;
    content[lowByte] = (byte) (content[lowByte] - 4);
    Files.write(segment, content);
    assertCorruptAt(segment, sizeAfter[1], "followed by a valid record");
  }

  @Test
  void aBadRecordInASegmentThatIsNotTheLastFailsStart() throws Exception {
    FileProcedureStore.Config small = CONFIG.withSegmentBytes(128);
    FileProcedureStore store = store(small);
    store.start();
    for (int id = 1; id <= 10; id++) { // all live: no segment is removed
      store.write(upserts(record(id, "record " + id)));
    }
    store.stop();
    List<Path> segments = StoreFiles.segments(dir);
    assertTrue(segments.size() >= 3, "segments: " + segments);
    Path first = segments.get(0);
    List<Long> offsets = StoreFiles.recordOffsets(first);
    long lastRecord = offsets.get(offsets.size() - 1);
    // the last byte of the first segment: in the last segment this would pass as a torn tail
    StoreFiles.flipByte(first, Files.size(first) - 1);
    assertCorruptAt(first, lastRecord, "not the last one");

    Files.delete(first); // an operator moving the bad file aside: the rest opens
    FileProcedureStore rest = store(small);
    rest.start();
    assertFalse(contents(rest).containsKey(1L));
    assertTrue(contents(rest).containsKey(10L));
  }

  @Test
  void aMissingSegmentBetweenOthersFailsStart() throws Exception {
    FileProcedureStore.Config small = CONFIG.withSegmentBytes(128);
    FileProcedureStore store = store(small);
    store.start();
    for (int id = 1; id <= 10; id++) {
      store.write(upserts(record(id, "record " + id)));
    }
    store.stop();
    List<Path> segments = StoreFiles.segments(dir);
    assertTrue(segments.size() >= 3, "segments: " + segments);
    Path missing = segments.get(1);
    Files.delete(missing);
    Map<String, byte[]> before = StoreFiles.snapshot(dir);

    FileProcedureStore broken = store(small);
    CorruptStoreException e = assertThrows(CorruptStoreException.class, broken::start);
    assertEquals(missing, e.file());
    assertEquals(0, e.offset());
    assertTrue(e.getMessage().contains("missing"), e.getMessage());
    assertFalse(broken.isRunning());
    assertUnchanged(before);
  }

  /**
   * start() fails with a CorruptStoreException at {@code file}:{@code offset}, twice, no change.
   */
  private void assertCorruptAt(Path file, long offset, String reason) throws IOException {
    Map<String, byte[]> before = StoreFiles.snapshot(dir);
    for (int attempt = 0; attempt < 2; attempt++) { // a failed start releases the directory lock
      FileProcedureStore store = store(CONFIG);
      CorruptStoreException e = assertThrows(CorruptStoreException.class, store::start);
      assertEquals(file, e.file(), e.getMessage());
      assertEquals(offset, e.offset(), e.getMessage());
      assertTrue(e.getMessage().contains(reason), e.getMessage());
      assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
      assertFalse(store.isRunning());
      assertUnchanged(before);
    }
  }

  private void assertUnchanged(Map<String, byte[]> before) throws IOException {
    Map<String, byte[]> after = StoreFiles.snapshot(dir);
    assertEquals(before.keySet(), after.keySet(), "files added or removed");
    for (Map.Entry<String, byte[]> e : before.entrySet()) {
      assertArrayEquals(e.getValue(), after.get(e.getKey()), e.getKey() + " changed");
    }
  }
}
