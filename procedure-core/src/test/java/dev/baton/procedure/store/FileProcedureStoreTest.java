package dev.baton.procedure.store;

import static dev.baton.procedure.store.StoreFiles.contents;
import static dev.baton.procedure.store.StoreFiles.deletes;
import static dev.baton.procedure.store.StoreFiles.record;
import static dev.baton.procedure.store.StoreFiles.upserts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FileProcedureStore} on real files: round trips across restarts, group commit, the
 * directory lock, stopping with writers in flight, and refused oversized batches. Segment cleanup
 * and recovery from damaged files are in {@link FileProcedureStoreSegmentsTest} and {@link
 * FileProcedureStoreRecoveryTest}.
 */
@Timeout(60)
class FileProcedureStoreTest {
  private static final FileProcedureStore.Config NO_FSYNC =
      FileProcedureStore.Config.defaults().withFsync(false);

  @TempDir Path dir;
  private final List<ProcedureStore> opened = new ArrayList<>();

  private FileProcedureStore open(FileProcedureStore.Config config) throws IOException {
    FileProcedureStore store = new FileProcedureStore(dir, config);
    opened.add(store);
    store.start();
    return store;
  }

  @AfterEach
  void stopAll() {
    opened.forEach(ProcedureStore::stop);
  }

  @Test
  void upsertsReplacesAndDeletesSurviveRestartOfTheSameAndOfANewInstance() throws Exception {
    FileProcedureStore store = open(FileProcedureStore.Config.defaults());
    // written out of procId order, in several batches, with replacements and deletes
    store.write(upserts(record(5, "five"), record(3, "three")));
    store.write(upserts(record(1, "one"), record(4, "four")));
    store.write(upserts(record(2, "two")));
    store.write(upserts(record(3, "three v2")));
    store.write(deletes(4));
    store.write(StoreBatch.builder().upsert(record(5, "five v2")).delete(1).build());
    Map<Long, String> expected = new LinkedHashMap<>();
    expected.put(2L, "two");
    expected.put(3L, "three v2");
    expected.put(5L, "five v2");

    assertEquals(expected, contents(store));
    assertEquals(List.of(2L, 3L, 5L), List.copyOf(contents(store).keySet()), "procId order");

    store.start(); // idempotent: no second lock, no second session
    assertTrue(store.isRunning());
    store.stop();
    store.stop(); // idempotent
    assertFalse(store.isRunning());
    store.start();
    assertEquals(expected, contents(store));
    assertEquals(5, store.load().maxProcId());
    store.write(upserts(record(6, "six")));
    store.stop();

    FileProcedureStore fresh = open(FileProcedureStore.Config.defaults());
    expected.put(6L, "six");
    assertEquals(expected, contents(fresh));
    assertEquals(List.of(2L, 3L, 5L, 6L), List.copyOf(contents(fresh).keySet()));
    assertEquals(6, fresh.load().maxProcId());
  }

  @Test
  void loadReturnsRecordsInAscendingProcIdOrder() throws Exception {
    FileProcedureStore store = open(NO_FSYNC);
    // ids spread wide, in random order: a hash map's iteration order is not procId order
    java.util.Random random = new java.util.Random(42);
    Set<Long> unique = new java.util.LinkedHashSet<>();
    while (unique.size() < 200) {
      unique.add(1 + (long) random.nextInt(1 << 30));
    }
    List<Long> ids = new ArrayList<>(unique);
    for (long id : ids) {
      store.write(upserts(record(id, "r" + id)));
    }
    List<Long> loaded = new ArrayList<>(contents(store).keySet());
    assertEquals(200, loaded.size());
    List<Long> sorted = new ArrayList<>(loaded);
    Collections.sort(sorted);
    assertEquals(sorted, loaded);
    store.stop();
    FileProcedureStore fresh = open(NO_FSYNC);
    assertEquals(sorted, new ArrayList<>(contents(fresh).keySet()));
  }

  @Test
  void maxProcIdSurvivesDeletionOfEveryRecordAndSegmentRemoval() throws Exception {
    // small segments: the records roll over many segments, and the old ones go once deleted
    FileProcedureStore.Config config = NO_FSYNC.withSegmentBytes(256);
    FileProcedureStore store = open(config);
    for (long id = 1; id <= 40; id++) {
      store.write(upserts(record(id, "record " + id + " with some padding")));
    }
    assertTrue(StoreFiles.segments(dir).size() > 3, "segments: " + StoreFiles.segments(dir));
    // deletes declare no maxProcId of their own: only the store remembers 40
    for (long id = 1; id <= 40; id++) {
      store.write(deletes(id));
    }
    // a declaration without records raises the highest id too (an allocated, unused id)
    store.write(StoreBatch.builder().maxProcId(45).build());
    for (int i = 0; i < 20; i++) {
      store.write(deletes(1000 + i)); // deleting unknown ids changes nothing but rolls segments
    }
    assertTrue(contents(store).isEmpty());
    assertEquals(45, store.load().maxProcId());
    store.stop();
    assertTrue(store.removedSegmentCount() > 0, "no segment was removed");
    assertTrue(
        StoreFiles.segments(dir).size() <= 2,
        "segments left with no live record: " + StoreFiles.segments(dir));

    FileProcedureStore fresh = open(config);
    assertTrue(contents(fresh).isEmpty());
    assertEquals(45, fresh.load().maxProcId(), "ids could be reused after a restart");
  }

  @Test
  void maxProcIdSurvivesAnEmptyLastSegmentLeftByACrashDuringARoll() throws Exception {
    FileProcedureStore store = open(NO_FSYNC);
    for (long id = 1; id <= 10; id++) {
      store.write(upserts(record(id, "r" + id)));
    }
    store.stop();
    // A crash right after a roll created the next segment, before its first record was written.
    Path first = StoreFiles.lastSegment(dir);
    Files.createFile(SegmentFormat.path(dir, SegmentFormat.FIRST_SEGMENT_ID + 1));

    FileProcedureStore again = open(NO_FSYNC);
    assertEquals(10, again.load().maxProcId());
    // Delete everything: the first segment now holds no live record and is removed.
    again.write(deletes(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
    again.stop();
    assertFalse(Files.exists(first), "the first segment holds only history and should be gone");

    FileProcedureStore fresh = open(NO_FSYNC);
    assertTrue(contents(fresh).isEmpty());
    assertEquals(10, fresh.load().maxProcId(), "ids could be reused after a restart");
  }

  @Test
  void concurrentWritersShareForcesAndEveryWriteIsDurable() throws Exception {
    FileProcedureStore store = open(FileProcedureStore.Config.defaults()); // fsync on
    int threads = 8;
    int perThread = 50;
    long syncsBefore = store.syncCount();
    long batchesBefore = store.writtenBatchCount();
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        futures.add(
            pool.submit(
                () -> {
                  go.await();
                  for (int i = 0; i < perThread; i++) {
                    long id = 1 + thread * perThread + i;
                    store.write(upserts(record(id, "t" + thread + " #" + i)));
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    long batches = store.writtenBatchCount() - batchesBefore;
    long syncs = store.syncCount() - syncsBefore;
    assertEquals(threads * perThread, batches);
    assertTrue(syncs >= 1, "no force at all with fsync on");
    assertTrue(syncs < batches, "group commit: " + syncs + " forces for " + batches + " batches");

    Map<Long, String> expected = new TreeMap<>();
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < perThread; i++) {
        expected.put((long) (1 + t * perThread + i), "t" + t + " #" + i);
      }
    }
    assertEquals(expected, contents(store));
    store.stop();
    FileProcedureStore fresh = open(FileProcedureStore.Config.defaults());
    assertEquals(expected, contents(fresh));
  }

  @Test
  void aLoneWriteIsWrittenAtOnceWithOneForce() throws Exception {
    FileProcedureStore store = open(FileProcedureStore.Config.defaults());
    long syncsBefore = store.syncCount();
    // The writer must not wait for more writes to share the force with.
    assertTimeoutPreemptively(
        Duration.ofSeconds(5), () -> store.write(upserts(record(1, "alone"))));
    assertEquals(1, store.writtenBatchCount());
    assertEquals(syncsBefore + 1, store.syncCount());
    assertEquals(Map.of(1L, "alone"), contents(store));
  }

  @Test
  void aSecondStoreOnTheSameDirectoryFailsWhileTheFirstRuns() throws Exception {
    FileProcedureStore first = open(NO_FSYNC);
    first.write(upserts(record(1, "one")));
    FileProcedureStore second = new FileProcedureStore(dir, NO_FSYNC);
    opened.add(second);

    IOException e = assertThrows(IOException.class, second::start);
    assertFalse(e instanceof CorruptStoreException, e.toString());
    assertTrue(e.getMessage().contains("in use"), e.getMessage());
    assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());
    assertFalse(second.isRunning());
    // the failed attempt took nothing away from the first store, and a retry still fails
    first.write(upserts(record(2, "two")));
    assertEquals(Map.of(1L, "one", 2L, "two"), contents(first));
    assertThrows(IOException.class, second::start);

    first.stop();
    second.start();
    assertEquals(Map.of(1L, "one", 2L, "two"), contents(second));
    second.write(upserts(record(3, "three")));
    assertEquals(3, contents(second).size());
  }

  @Test
  void aFailedSecondStartDoesNotUnlockTheDirectoryForOtherProcesses() throws Exception {
    FileProcedureStore first = open(NO_FSYNC);
    Path lockFile = dir.toRealPath().resolve(StoreDirectoryLock.LOCK_FILE);
    FileProcedureStore second = new FileProcedureStore(dir, NO_FSYNC);
    opened.add(second);
    assertThrows(IOException.class, second::start);
    assertThrows(IOException.class, second::start);
    // (POSIX: closing any channel of the lock file drops every lock of this process on it)
    assertEquals(
        LockProbe.LOCKED_ELSEWHERE,
        LockProbe.probe(lockFile, Duration.ofSeconds(30)),
        "another process could lock the directory of a running store");

    first.stop();
    assertEquals(LockProbe.GOT_LOCK, LockProbe.probe(lockFile, Duration.ofSeconds(30)));
  }

  @Test
  void stopReturnsOnlyOnceTheStoreIsStoppedEvenWhenAnotherThreadIsStoppingIt() throws Exception {
    FileProcedureStore store = open(NO_FSYNC);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 100; round++) {
        store.start();
        store.write(upserts(record(round + 1, "r" + round)));
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> stoppers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
          stoppers.add(
              pool.submit(
                  () -> {
                    go.await();
                    store.stop();
                    // whichever stop() returns, the directory must be free now
                    synchronized (go) {
                      StoreDirectoryLock.acquire(dir).close();
                    }
                    return null;
                  }));
        }
        go.countDown();
        for (Future<?> f : stoppers) {
          f.get(10, TimeUnit.SECONDS);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void writesAndLoadsOnAStoppedOrNeverStartedStoreFail() throws Exception {
    FileProcedureStore never = new FileProcedureStore(dir, NO_FSYNC);
    assertThrows(StoreStoppedException.class, () -> never.write(upserts(record(1, "x"))));
    assertThrows(StoreStoppedException.class, never::load);

    FileProcedureStore store = open(NO_FSYNC);
    store.write(upserts(record(1, "one")));
    store.stop();
    StoreStoppedException e =
        assertThrows(StoreStoppedException.class, () -> store.write(upserts(record(2, "two"))));
    assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());
    assertThrows(StoreStoppedException.class, store::load);

    store.start();
    assertEquals(Map.of(1L, "one"), contents(store), "the refused write must not be stored");
  }

  @Test
  void stopFailsWritersInFlightWithStoreStoppedAndLosesNoAcknowledgedWrite() throws Exception {
    // one batch per force: while one write is on disk the other writers wait in the queue
    FileProcedureStore.Config oneAtATime =
        new FileProcedureStore.Config(
            FileProcedureStore.Config.DEFAULT_SEGMENT_BYTES,
            FileProcedureStore.Config.DEFAULT_COMPACTION_THRESHOLD,
            1,
            true);
    FileProcedureStore store = open(oneAtATime);
    int threads = 8;
    Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Throwable>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        futures.add(
            pool.submit(
                () -> {
                  for (long i = 0; ; i++) {
                    long id = 1 + thread + threads * i;
                    try {
                      store.write(upserts(record(id, "w" + id)));
                    } catch (IOException e) {
                      return e;
                    }
                    acknowledged.add(id);
                  }
                }));
      }
      // stop while the writers are busy: some are queued, one drain may be on disk
      Awaitility.await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> store.writtenBatchCount() >= 30);
      store.stop();
      int failedWhileQueued = 0;
      for (Future<Throwable> f : futures) {
        Throwable failure = f.get(10, TimeUnit.SECONDS); // no writer hangs
        assertInstanceOf(StoreStoppedException.class, failure, String.valueOf(failure));
        // a write failed by stop() while it waited is rethrown with stop()'s exception as cause;
        // the others reached the store after stop() and were refused at once
        if (failure.getCause() instanceof StoreStoppedException) {
          failedWhileQueued++;
        }
      }
      assertTrue(failedWhileQueued > 0, "no writer was waiting in the queue when stop() ran");
    } finally {
      pool.shutdownNow();
    }
    FileProcedureStore fresh = open(oneAtATime);
    Set<Long> durable = contents(fresh).keySet();
    List<Long> lost = acknowledged.stream().filter(id -> !durable.contains(id)).sorted().toList();
    assertTrue(lost.isEmpty(), "acknowledged but lost: " + lost);
  }

  @Test
  void aFailedWriteFailsTheStoreUntilARestartWhichKeepsEveryAcknowledgedWrite() throws Exception {
    FileProcedureStore.Config small = NO_FSYNC.withSegmentBytes(256);
    FileProcedureStore store = open(small);
    Map<Long, String> acknowledged = new TreeMap<>();
    store.write(upserts(record(1, "one")));
    acknowledged.put(1L, "one");
    // a directory holds the next segment's name: the roll to it fails
    Path blocker = Files.createDirectory(SegmentFormat.path(dir, 2));
    IOException failure = null;
    for (long id = 2; id < 100 && failure == null; id++) {
      String data = "record " + id + " padded to fill the segment quickly";
      try {
        store.write(upserts(record(id, data)));
        acknowledged.put(id, data);
      } catch (IOException e) {
        failure = e;
      }
    }
    assertTrue(failure != null, "the roll never failed");
    assertFalse(failure instanceof StoreStoppedException, failure.toString());
    IOException later =
        assertThrows(IOException.class, () -> store.write(upserts(record(500, "later"))));
    assertFalse(later instanceof StoreStoppedException, later.toString());
    // "stop and start it to recover", or the writer's own failure if this write was queued first
    assertTrue(later.getMessage().contains("start"), later.getMessage());

    store.stop();
    Files.delete(blocker);
    store.start();
    Map<Long, String> recovered = contents(store);
    assertTrue(
        recovered.entrySet().containsAll(acknowledged.entrySet()),
        "acknowledged " + acknowledged + ", recovered " + recovered);
    assertFalse(recovered.containsKey(500L));
    store.write(upserts(record(501, "after the restart")));
    store.stop();
    FileProcedureStore fresh = open(small);
    assertEquals("after the restart", contents(fresh).get(501L));
  }

  @Test
  void anOversizedBatchIsRefusedAndTheStoreKeepsWorking() throws Exception {
    FileProcedureStore store = open(NO_FSYNC);
    store.write(upserts(record(1, "before")));
    long sizeBefore = StoreFiles.segmentBytes(dir);
    byte[] huge = new byte[SegmentFormat.MAX_RECORD_BYTES + 1];

    IOException e =
        assertThrows(IOException.class, () -> store.write(upserts(new StoreRecord(2, huge))));
    assertFalse(e instanceof StoreStoppedException, e.toString());
    assertTrue(
        e.getMessage().contains(String.valueOf(SegmentFormat.MAX_RECORD_BYTES)), e.getMessage());
    assertTrue(e.getMessage().contains("smaller batches"), e.getMessage());
    assertEquals(sizeBefore, StoreFiles.segmentBytes(dir), "nothing of the refused batch on disk");

    store.write(upserts(record(3, "after")));
    assertEquals(Map.of(1L, "before", 3L, "after"), contents(store));
    store.stop();
    FileProcedureStore fresh = open(NO_FSYNC);
    assertEquals(Map.of(1L, "before", 3L, "after"), contents(fresh));
  }
}
