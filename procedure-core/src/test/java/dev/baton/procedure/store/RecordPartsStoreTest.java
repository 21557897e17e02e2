package dev.baton.procedure.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.proto.StoreBatchProto;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records' parts in the local stores: a delta puts, replaces and drops parts and keeps the others,
 * a record written without parts has none, the file store replays deltas across restarts and
 * compaction, and a delta whose record is nowhere is refused naming the procedure.
 */
@Timeout(60)
class RecordPartsStoreTest {
  private static final long SEGMENT_BYTES = 1024;
  private static final int COMPACTION_THRESHOLD = 3;
  private static final String PADDING = "p".repeat(100);
  private static final int[] NO_DROPS = new int[0];

  @TempDir Path dir;
  private final List<ProcedureStore> opened = new ArrayList<>();

  @AfterEach
  void stopAll() {
    opened.forEach(ProcedureStore::stop);
  }

  private FileProcedureStore openFile() throws IOException {
    FileProcedureStore store =
        new FileProcedureStore(
            dir,
            FileProcedureStore.Config.defaults()
                .withFsync(false)
                .withSegmentBytes(SEGMENT_BYTES)
                .withCompactionThreshold(COMPACTION_THRESHOLD));
    opened.add(store);
    store.start();
    return store;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static Map<Integer, byte[]> parts(Object... indexAndText) {
    Map<Integer, byte[]> out = new TreeMap<>();
    for (int i = 0; i < indexAndText.length; i += 2) {
      out.put((Integer) indexAndText[i], bytes((String) indexAndText[i + 1]));
    }
    return out;
  }

  static StoreRecord complete(long procId, String head, Object... parts) {
    return new StoreRecord(procId, bytes(head), RecordParts.complete(parts(parts)));
  }

  static StoreRecord delta(long procId, String head, int[] drops, Object... put) {
    return new StoreRecord(procId, bytes(head), RecordParts.delta(parts(put), drops));
  }

  static StoreBatch batch(StoreRecord... records) {
    return StoreFiles.upserts(records);
  }

  /** Every live record as "head|index=text,...", by procId; its parts must be complete. */
  static Map<Long, String> described(ProcedureStore store) throws IOException {
    Map<Long, String> out = new LinkedHashMap<>();
    for (StoreRecord r : store.load().records()) {
      assertTrue(r.parts().isComplete(), "load() handed over a delta for " + r.procId());
      StringBuilder s = new StringBuilder(new String(r.data(), StandardCharsets.UTF_8)).append('|');
      for (Map.Entry<Integer, byte[]> p : r.parts().parts().entrySet()) {
        s.append(p.getKey()).append('=').append(new String(p.getValue(), StandardCharsets.UTF_8));
        s.append(',');
      }
      out.put(r.procId(), s.toString());
    }
    return out;
  }

  /** Writes the same history to {@code store}; returns what it must then hold. */
  private static Map<Long, String> writeHistory(ProcedureStore store) throws IOException {
    store.write(batch(complete(1, "h1", 0, "a", 1, "b", 2, "c"), complete(2, "h2", 5, "x")));
    store.write(batch(delta(1, "h1'", new int[] {0}, 1, "B", 3, "d")));
    store.write(batch(new StoreRecord(2, bytes("h2 plain"))));
    // a complete write and a delta on it in one batch
    store.write(batch(complete(3, "h3", 0, "q"), delta(3, "h3'", NO_DROPS, 1, "r")));
    Map<Long, String> expected = new LinkedHashMap<>();
    expected.put(1L, "h1'|1=B,2=c,3=d,");
    expected.put(2L, "h2 plain|");
    expected.put(3L, "h3'|0=q,1=r,");
    return expected;
  }

  @Test
  void inMemoryDeltasPutReplaceAndDropPartsAndKeepTheOthers() throws Exception {
    InMemoryProcedureStore store = new InMemoryProcedureStore();
    store.start();
    Map<Long, String> expected = writeHistory(store);
    assertEquals(expected, described(store));
  }

  @Test
  void fileStoreDeltasSurviveARestart() throws Exception {
    FileProcedureStore store = openFile();
    Map<Long, String> expected = writeHistory(store);
    assertEquals(expected, described(store));
    store.stop();
    assertEquals(expected, described(openFile()), "after replaying the segments");
  }

  @Test
  void aDeltaForARecordTheStoreDoesNotHoldIsRefusedNamingIt() throws Exception {
    InMemoryProcedureStore memory = new InMemoryProcedureStore();
    memory.start();
    memory.write(batch(complete(1, "h1", 0, "a")));
    IOException refused =
        assertThrows(
            IOException.class,
            () -> memory.write(batch(complete(2, "h2"), delta(7, "h7", NO_DROPS, 0, "z"))));
    assertTrue(refused.getMessage().contains("procedure 7"), refused.getMessage());
    assertEquals(Map.of(1L, "h1|0=a,"), described(memory), "the refused batch changed nothing");

    FileProcedureStore file = openFile();
    file.write(batch(complete(1, "h1", 0, "a")));
    assertThrows(IOException.class, () -> file.write(batch(delta(7, "h7", NO_DROPS, 0, "z"))));
    file.stop();
    FileProcedureStore again =
        new FileProcedureStore(dir, FileProcedureStore.Config.defaults().withFsync(false));
    opened.add(again);
    CorruptStoreException corrupt = assertThrows(CorruptStoreException.class, again::start);
    assertTrue(corrupt.getMessage().contains("procedures [7]"), corrupt.getMessage());
  }

  @Test
  void compactionMovesARecordWithAllItsPartsAndDeltasAfterItStillReplay() throws Exception {
    FileProcedureStore store = openFile();
    // record 1 is written complete once, then changed by deltas only: its anchor is the first
    // segment until compaction copies it forward whole
    store.write(batch(complete(1, "h1", 0, "kept", 1, "v0", 2, "dropped later")));
    store.write(batch(delta(1, "h1", new int[] {2}, 1, "v1")));
    int rounds = 200;
    for (int round = 2; round <= rounds; round++) {
      store.write(
          batch(
              delta(1, "h1@" + round, NO_DROPS, 1, "v" + round),
              new StoreRecord(100, bytes("churn@" + round + PADDING))));
    }
    Map<Long, String> expected = new LinkedHashMap<>();
    expected.put(1L, "h1@" + rounds + "|0=kept,1=v" + rounds + ",");
    expected.put(100L, "churn@" + rounds + PADDING + "|");
    assertEquals(expected, described(store));
    store.stop();
    assertTrue(store.compactionCount() > 0, "no compaction happened");
    assertFalse(
        StoreFiles.segments(dir).contains(SegmentFormat.path(dir, SegmentFormat.FIRST_SEGMENT_ID)),
        "the first segment, which anchored record 1, is still there");

    assertEquals(expected, described(openFile()), "after replaying the remaining segments");
  }

  @Test
  void onlyABatchWithPartsIsWrittenInFormat2() {
    StoreBatchProto plain = batch(new StoreRecord(1, bytes("h"))).toProto();
    assertEquals(StoreBatch.FORMAT_VERSION_NO_PARTS, plain.getFormatVersion());
    assertEquals(0, plain.getUpserts(0).getPartsCount());
    StoreBatchProto withParts = batch(delta(1, "h", new int[] {4}, 2, "two")).toProto();
    assertEquals(StoreBatch.FORMAT_VERSION, withParts.getFormatVersion());
    assertTrue(StoreBatch.FORMAT_VERSION > StoreBatch.FORMAT_VERSION_NO_PARTS);
    StoreRecord back = StoreBatch.fromProto(withParts).upserts().get(0);
    assertTrue(back.isDelta());
    assertEquals("[4]", java.util.Arrays.toString(back.parts().drops()));
    assertEquals("two", new String(back.parts().parts().get(2), StandardCharsets.UTF_8));
  }
}
