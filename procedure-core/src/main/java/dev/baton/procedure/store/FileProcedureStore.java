package dev.baton.procedure.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A durable {@link ProcedureStore} in a local directory: an append-only log of checksummed batch
 * records in numbered segment files.
 *
 * <ul>
 *   <li>Writes: one writer thread takes every batch queued at that moment, appends one record per
 *       batch and forces the file once for all of them (group commit), then releases the callers. A
 *       lone write is written at once; the writer never waits for company.
 *   <li>Atomicity: one batch is one record {@code [length][crc32c][batch]}; a crash leaves either
 *       the whole record or a torn tail, which the next start truncates with a warning.
 *   <li>Corruption anywhere else (a bad record followed by valid ones, a bad record in an older
 *       segment, a missing segment) fails {@link #start} with a {@link CorruptStoreException}
 *       naming the file and offset; records are never dropped silently.
 *   <li>Disk follows live procedures: segments roll at {@link Config#segmentBytes()}; a segment
 *       holding only superseded records is deleted (oldest first); beyond {@link
 *       Config#compactionThreshold()} segments the oldest one's live records are copied forward so
 *       it can go.
 *   <li>The highest procId survives deletions: every new segment starts with a record declaring it.
 * </ul>
 *
 * <p>The directory is locked while the store runs. {@link #stop} fails queued writes with {@link
 * StoreStoppedException}; a later {@link #start} reads everything back from disk.
 */
public final class FileProcedureStore implements ProcedureStore {

  /**
   * Tuning of a file store.
   *
   * @param segmentBytes size at which the active segment rolls to a new file
   * @param compactionThreshold segment count beyond which the oldest segment is compacted
   * @param maxGroupCommitRecords most batches written with one force
   * @param fsync whether to force writes to disk; off only for tests and benchmarks that measure
   *     everything but the disk
   */
  public record Config(
      long segmentBytes, int compactionThreshold, int maxGroupCommitRecords, boolean fsync) {
    /** Default segment size: 64 MiB. */
    public static final long DEFAULT_SEGMENT_BYTES = 64L << 20;

    /** Default segment count beyond which the oldest is compacted. */
    public static final int DEFAULT_COMPACTION_THRESHOLD = 4;

    /** Default bound of one group commit. */
    public static final int DEFAULT_MAX_GROUP_COMMIT_RECORDS = 4096;

    public Config {
      if (segmentBytes < SegmentFormat.HEADER_BYTES + 1) {
        throw new IllegalArgumentException("segmentBytes must hold a record: " + segmentBytes);
      }
      if (compactionThreshold < 2) {
        throw new IllegalArgumentException(
            "compactionThreshold must be at least 2: " + compactionThreshold);
      }
      if (maxGroupCommitRecords < 1) {
        throw new IllegalArgumentException(
            "maxGroupCommitRecords must be positive: " + maxGroupCommitRecords);
      }
    }

    public static Config defaults() {
      return new Config(
          DEFAULT_SEGMENT_BYTES,
          DEFAULT_COMPACTION_THRESHOLD,
          DEFAULT_MAX_GROUP_COMMIT_RECORDS,
          true);
    }

    public Config withSegmentBytes(long bytes) {
      return new Config(bytes, compactionThreshold, maxGroupCommitRecords, fsync);
    }

    public Config withCompactionThreshold(int segments) {
      return new Config(segmentBytes, segments, maxGroupCommitRecords, fsync);
    }

    public Config withFsync(boolean on) {
      return new Config(segmentBytes, compactionThreshold, maxGroupCommitRecords, on);
    }
  }

  private final Path dir;
  private final Config config;
  private final StoreCounters counters = new StoreCounters();
  private StoreSession session;

  public FileProcedureStore(Path dir) {
    this(dir, Config.defaults());
  }

  public FileProcedureStore(Path dir, Config config) {
    this.dir = Objects.requireNonNull(dir, "dir");
    this.config = Objects.requireNonNull(config, "config");
  }

  public Path directory() {
    return dir;
  }

  @Override
  public synchronized void start() throws IOException {
    if (session == null) {
      session = StoreSession.open(dir, config, counters);
    }
  }

  /**
   * Fails the queued writes and closes the files. Returns once the store is stopped and its
   * directory unlocked, also when another thread is stopping it at the same time.
   */
  @Override
  public synchronized void stop() {
    StoreSession closing = session;
    session = null;
    if (closing != null) {
      closing.close(); // under the monitor: a concurrent stop() or start() waits for the close
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return session != null;
  }

  @Override
  public StoreContents load() throws IOException {
    return running().load();
  }

  @Override
  public void write(StoreBatch batch) throws IOException {
    running().write(batch);
  }

  /**
   * Queues the batch for the writer thread and returns at once; the future completes when the group
   * commit that carries it is durable. Batches handed over by one thread are written in that order.
   */
  @Override
  public CompletableFuture<Void> writeAsync(StoreBatch batch) {
    try {
      return running().writeAsync(batch);
    } catch (StoreStoppedException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Number of {@code force} calls so far (group commit makes this far below the batch count). */
  public long syncCount() {
    return counters.syncs();
  }

  /** Number of batches made durable so far. */
  public long writtenBatchCount() {
    return counters.writtenBatches();
  }

  /** Number of segment compactions so far. */
  public long compactionCount() {
    return counters.compactions();
  }

  /** Number of segments removed because they held only superseded records. */
  public long removedSegmentCount() {
    return counters.removedSegments();
  }

  private synchronized StoreSession running() throws StoreStoppedException {
    if (session == null) {
      throw new StoreStoppedException("procedure store " + dir + " is not started");
    }
    return session;
  }

  @Override
  public String toString() {
    return "FileProcedureStore{" + dir + "}";
  }
}
