package dev.baton.procedure.store;

import static dev.baton.procedure.store.StoreFiles.contents;
import static dev.baton.procedure.store.StoreFiles.deletes;
import static dev.baton.procedure.store.StoreFiles.record;
import static dev.baton.procedure.store.StoreFiles.upserts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Disk use of {@link FileProcedureStore} follows the live records: segments roll at the configured
 * size, segments holding only superseded records are removed, and beyond the compaction threshold
 * the oldest segment's live records are moved forward so it can go.
 */
@Timeout(60)
class FileProcedureStoreSegmentsTest {
  private static final long SEGMENT_BYTES = 1024;
  private static final String PADDING = "x".repeat(100);

  @TempDir Path dir;
  private final List<ProcedureStore> opened = new ArrayList<>();

  private FileProcedureStore open(int compactionThreshold) throws IOException {
    FileProcedureStore store =
        new FileProcedureStore(
            dir,
            FileProcedureStore.Config.defaults()
                .withFsync(false)
                .withSegmentBytes(SEGMENT_BYTES)
                .withCompactionThreshold(compactionThreshold));
    opened.add(store);
    store.start();
    return store;
  }

  @AfterEach
  void stopAll() {
    opened.forEach(ProcedureStore::stop);
  }

  @Test
  void segmentsRollAtTheConfiguredSize() throws Exception {
    FileProcedureStore store = open(1000); // no compaction
    Map<Long, String> expected = new TreeMap<>();
    for (long id = 1; id <= 50; id++) { // every record stays live: nothing can be removed
      store.write(upserts(record(id, id + PADDING)));
      expected.put(id, id + PADDING);
    }
    store.stop();
    List<Path> segments = StoreFiles.segments(dir);
    long total = StoreFiles.segmentBytes(dir);
    assertTrue(segments.size() >= total / SEGMENT_BYTES, segments.size() + " for " + total);
    for (Path segment : segments) {
      long size = java.nio.file.Files.size(segment);
      assertTrue(size <= SEGMENT_BYTES, segment + " has " + size + " bytes");
      assertTrue(size > 0, segment + " is empty");
    }
    assertEquals(0, store.removedSegmentCount());
    assertEquals(0, store.compactionCount());

    FileProcedureStore fresh = open(1000);
    assertEquals(expected, contents(fresh));
    assertEquals(50, fresh.load().maxProcId());
  }

  @Test
  void segmentsHoldingOnlySupersededRecordsAreRemoved() throws Exception {
    FileProcedureStore store = open(1000); // no compaction: removal alone
    for (int round = 0; round < 100; round++) {
      // every round replaces all three records: every older segment holds only history
      store.write(
          upserts(
              record(1, "one@" + round + PADDING),
              record(2, "two@" + round + PADDING),
              record(3, "three@" + round + PADDING)));
    }
    store.stop(); // waits for the writer's cleanup after the last write
    assertTrue(store.removedSegmentCount() > 10, "removed: " + store.removedSegmentCount());
    assertEquals(0, store.compactionCount());
    // about 35 KiB were written in 1 KiB segments; only the newest segment holds live records
    assertEquals(1, StoreFiles.segments(dir).size(), "segments: " + StoreFiles.segments(dir));

    FileProcedureStore fresh = open(1000);
    assertEquals(
        Map.of(1L, "one@99" + PADDING, 2L, "two@99" + PADDING, 3L, "three@99" + PADDING),
        contents(fresh));
    assertEquals(3, fresh.load().maxProcId());
  }

  @Test
  void compactionMovesLiveRecordsOutOfTheOldestSegmentAndKeepsThem() throws Exception {
    int threshold = 3;
    FileProcedureStore store = open(threshold);
    Map<Long, String> expected = new TreeMap<>();
    // records that never change pin the first segment: removal alone can never free it
    for (long id = 1; id <= 5; id++) {
      store.write(upserts(record(id, "pinned " + id)));
      expected.put(id, "pinned " + id);
    }
    for (int round = 0; round < 200; round++) {
      store.write(upserts(record(100, "churn@" + round + PADDING)));
    }
    expected.put(100L, "churn@199" + PADDING);
    store.stop();
    assertTrue(store.compactionCount() > 0, "no compaction happened");
    assertTrue(store.removedSegmentCount() > 0, "no segment was removed");
    List<Path> segments = StoreFiles.segments(dir);
    assertTrue(segments.size() <= threshold + 1, "segments: " + segments);
    assertTrue(
        !segments.contains(SegmentFormat.path(dir, SegmentFormat.FIRST_SEGMENT_ID)),
        "the pinned first segment is still there: " + segments);

    FileProcedureStore fresh = open(threshold);
    assertEquals(expected, contents(fresh));
    assertEquals(100, fresh.load().maxProcId());
  }

  @Test
  void diskUseFollowsLiveDataAfterEverythingIsDeleted() throws Exception {
    int threshold = 4;
    FileProcedureStore store = open(threshold);
    long written = 0;
    for (long id = 1; id <= 100; id++) {
      StoreRecord r = record(id, id + PADDING);
      store.write(upserts(r));
      written += r.data().length;
    }
    // the live data alone spans more segments than the threshold
    assertTrue(StoreFiles.segments(dir).size() > threshold + 1);
    for (long id = 1; id <= 100; id++) {
      store.write(deletes(id));
    }
    for (int round = 0; round < 50; round++) {
      store.write(upserts(record(101, "last@" + round)));
    }
    store.stop();
    // one small live record, in the newest segment: every older segment holds only history
    List<Path> segments = StoreFiles.segments(dir);
    assertEquals(1, segments.size(), "segments: " + segments);
    long left = StoreFiles.segmentBytes(dir);
    assertTrue(left <= SEGMENT_BYTES, left + " bytes left after writing " + written);

    FileProcedureStore fresh = open(threshold);
    assertEquals(Map.of(101L, "last@49"), contents(fresh));
    assertEquals(101, fresh.load().maxProcId());
  }
}
