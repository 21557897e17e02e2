package dev.baton.procedure.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single writer of a {@link FileProcedureStore} (group commit). Each round takes every write
 * queued at that moment, appends one record per batch, forces the segment once for all of them,
 * applies them to the index and only then releases the callers. After each round it lets the {@link
 * SegmentCleaner} remove or compact old segments.
 *
 * <p>If a round fails, every caller in it gets an {@link IOException}, the store is reported failed
 * through {@code onFailure} (which fails the queued writes and refuses new ones) and the thread
 * ends: after a failed write or force the file contents are unknown, so only a restart, which reads
 * the files back, may continue.
 */
final class StoreWriterThread extends Thread {
  private static final Logger LOG = LoggerFactory.getLogger(StoreWriterThread.class);

  private final Path dir;
  private final GroupCommitQueue queue;
  private final SegmentLog log;
  private final StoreIndex index;
  private final SegmentCleaner cleaner;
  private final int maxGroupCommitRecords;
  private final StoreCounters counters;
  private final Consumer<IOException> onFailure;

  StoreWriterThread(
      Path dir,
      GroupCommitQueue queue,
      SegmentLog log,
      StoreIndex index,
      SegmentCleaner cleaner,
      int maxGroupCommitRecords,
      StoreCounters counters,
      Consumer<IOException> onFailure) {
    super("baton-store-writer-" + dir.getFileName());
    setDaemon(true);
    this.dir = dir;
    this.queue = queue;
    this.log = log;
    this.index = index;
    this.cleaner = cleaner;
    this.maxGroupCommitRecords = maxGroupCommitRecords;
    this.counters = counters;
    this.onFailure = onFailure;
  }

  @Override
  public void run() {
    List<PendingWrite> drain = List.of();
    try {
      while (true) {
        drain = queue.take(maxGroupCommitRecords);
        if (drain.isEmpty()) {
          return;
        }
        long bytes = commit(drain);
        drain = List.of();
        cleaner.afterDrain(bytes);
      }
    } catch (IOException | RuntimeException | Error e) {
      IOException failure =
          new IOException(
              "procedure store write to "
                  + dir
                  + " failed; the store accepts no more writes until it is stopped and started"
                  + " again (the failed batches may or may not be durable)",
              e);
      LOG.error("Procedure store {} failed; restart it to recover from disk", dir, e);
      for (PendingWrite w : drain) {
        w.fail(failure);
      }
      onFailure.accept(failure);
      if (e instanceof Error error) {
        throw error;
      }
    }
  }

  /** Appends, forces and applies one drain, then releases its callers; returns bytes written. */
  private long commit(List<PendingWrite> drain) throws IOException {
    long maxProcId = index.maxProcId();
    long bytes = 0;
    long[] segments = new long[drain.size()];
    for (int i = 0; i < drain.size(); i++) {
      PendingWrite w = drain.get(i);
      segments[i] = log.add(w.frame(), maxProcId);
      maxProcId = Math.max(maxProcId, w.batch().maxProcId());
      bytes += w.frameBytes();
    }
    log.sync();
    for (int i = 0; i < drain.size(); i++) {
      index.apply(drain.get(i).batch(), segments[i]);
    }
    counters.countWrittenBatches(drain.size());
    for (PendingWrite w : drain) {
      w.complete();
    }
    return bytes;
  }
}
