package dev.baton.procedure.store;

import java.util.concurrent.atomic.AtomicLong;

/** Counters of a {@link FileProcedureStore}, kept across restarts of the instance. */
final class StoreCounters {
  /** {@code force} calls on segment files. */
  final AtomicLong syncs = new AtomicLong();

  /** Caller batches made durable. */
  final AtomicLong writtenBatches = new AtomicLong();

  /** Segments whose live records were moved forward so the segment could be removed. */
  final AtomicLong compactions = new AtomicLong();

  /** Segments removed because they held only history. */
  final AtomicLong removedSegments = new AtomicLong();
}
