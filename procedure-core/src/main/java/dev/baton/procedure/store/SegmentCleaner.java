package dev.baton.procedure.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps disk use following the live procedures rather than the history, on the writer thread after
 * each drain:
 *
 * <ul>
 *   <li>Removal: while the oldest segment is not the active one and holds no live latest version,
 *       it is deleted. Only the oldest end is ever removed: a delete refers to a record in the same
 *       or an older segment, so the tombstones in a removed segment matter to nothing that remains.
 *   <li>Compaction: when there are more than {@code compactionThreshold} segments and the oldest
 *       still holds live records, those records are appended again to the active segment, so the
 *       oldest becomes removable. Re-appending a latest version changes nothing, so the copy may be
 *       split over several records. Compaction writes at most as many bytes as callers wrote since
 *       the last one (the budget), which bounds write amplification when the live data alone spans
 *       more segments than the threshold.
 * </ul>
 */
final class SegmentCleaner {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentCleaner.class);

  /** Live data moved per record during compaction. */
  static final long COMPACTION_RECORD_BYTES = 1 << 20;

  private final SegmentLog log;
  private final StoreIndex index;
  private final int compactionThreshold;
  private final StoreCounters counters;
  private long compactionBudget;

  SegmentCleaner(
      SegmentLog log, StoreIndex index, int compactionThreshold, StoreCounters counters) {
    this.log = log;
    this.index = index;
    this.compactionThreshold = compactionThreshold;
    this.counters = counters;
  }

  /**
   * Runs after a drain of {@code writtenBytes} bytes is durable: removes segments that hold only
   * history and compacts the oldest one if there are too many.
   *
   * @throws IOException if a compaction write fails (the store must be treated as failed)
   */
  void afterDrain(long writtenBytes) throws IOException {
    compactionBudget += writtenBytes;
    removeObsolete();
    if (log.segmentCount() > compactionThreshold) {
      long oldest = log.oldestId();
      long liveBytes = index.liveBytes(oldest);
      if (liveBytes > 0 && liveBytes <= compactionBudget) {
        compact(oldest);
        compactionBudget -= liveBytes;
        removeObsolete();
      }
    }
  }

  private void removeObsolete() {
    while (log.segmentCount() > 1 && index.liveCount(log.oldestId()) == 0) {
      long oldest = log.oldestId();
      try {
        log.deleteOldest();
      } catch (IOException e) {
        LOG.warn(
            "Could not remove procedure store segment {}, which holds only superseded records;"
                + " will retry after the next write. Check the store directory's permissions",
            SegmentFormat.fileName(oldest),
            e);
        return;
      }
      counters.countRemovedSegment();
    }
  }

  private void compact(long segmentId) throws IOException {
    List<StoreRecord> live = index.liveRecordsIn(segmentId);
    long maxProcId = index.maxProcId();
    List<StoreBatch> batches = new ArrayList<>();
    StoreBatch.Builder batch = StoreBatch.builder().maxProcId(maxProcId);
    long batchBytes = 0;
    for (StoreRecord r : live) {
      if (batchBytes > 0 && batchBytes + StoreIndex.sizeOf(r) > COMPACTION_RECORD_BYTES) {
        batches.add(batch.build());
        batch = StoreBatch.builder().maxProcId(maxProcId);
        batchBytes = 0;
      }
      batch.upsert(r);
      batchBytes += StoreIndex.sizeOf(r);
    }
    batches.add(batch.build());
    long[] segments = new long[batches.size()];
    for (int i = 0; i < batches.size(); i++) {
      ByteBuffer frame = SegmentFormat.encode(batches.get(i), maxProcId);
      segments[i] = log.add(frame, maxProcId);
    }
    log.sync();
    for (int i = 0; i < batches.size(); i++) {
      index.apply(batches.get(i), segments[i]);
    }
    counters.countCompaction();
    LOG.debug(
        "Compacted procedure store segment {}: moved {} live records into segment {}",
        SegmentFormat.fileName(segmentId),
        live.size(),
        log.activeId());
  }
}
