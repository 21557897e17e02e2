package dev.baton.procedure.store;

import java.util.concurrent.atomic.AtomicLong;

/** Counters of a {@link FileProcedureStore}, kept across restarts of the instance. */
final class StoreCounters {
  private final AtomicLong syncs = new AtomicLong();
  private final AtomicLong writtenBatches = new AtomicLong();
  private final AtomicLong compactions = new AtomicLong();
  private final AtomicLong removedSegments = new AtomicLong();

  /** A {@code force} call on a segment file. */
  void countSync() {
    syncs.incrementAndGet();
  }

  /** {@code batches} caller batches were made durable. */
  void countWrittenBatches(int batches) {
    writtenBatches.addAndGet(batches);
  }

  /** A segment's live records were moved forward so the segment could be removed. */
  void countCompaction() {
    compactions.incrementAndGet();
  }

  /** A segment was removed because it held only history. */
  void countRemovedSegment() {
    removedSegments.incrementAndGet();
  }

  long syncs() {
    return syncs.get();
  }

  long writtenBatches() {
    return writtenBatches.get();
  }

  long compactions() {
    return compactions.get();
  }

  long removedSegments() {
    return removedSegments.get();
  }
}
