package dev.baton.procedure.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the segments of a {@link FileProcedureStore} hold, in memory: the latest version of every
 * live procedure (its parts complete), the segment it is anchored in, how much live data each
 * segment holds, and the highest procId ever declared. A plain data structure with no I/O; the
 * writer thread changes it after a batch is durable, readers copy from it.
 *
 * <p>A record's anchor is the segment of its last complete write (head and all parts); a parts
 * delta changes the record where it is anchored, since the parts it keeps were written there or
 * later. A segment anchoring no live record holds only history. While segments are replayed, a
 * delta may meet no record: its base was in a segment removed after the record was written complete
 * again or deleted later, which a later record of the replay then shows; one that nothing later
 * settles is corruption ({@link #finishReplay}).
 */
final class StoreIndex {
  /** Estimated bytes a record adds beyond its data (framing, procId and protobuf tags). */
  static final int RECORD_OVERHEAD_BYTES = 16;

  private record Entry(StoreRecord record, long segmentId) {}

  /** The procedures whose latest version lives in one segment. */
  private static final class SegmentLive {
    final Set<Long> procIds = new HashSet<>();
    long bytes;
  }

  private final Map<Long, Entry> latest = new HashMap<>();
  private final Map<Long, SegmentLive> liveBySegment = new HashMap<>();
  private final Set<Long> unsettled = new TreeSet<>();
  private boolean replaying = true;
  private long maxProcId;

  /** Applies a durable batch stored in {@code segmentId}: upserts replace, then deletes remove. */
  synchronized void apply(StoreBatch batch, long segmentId) {
    for (StoreRecord r : batch.upserts()) {
      if (r.isDelta()) {
        applyDelta(r);
        continue;
      }
      unsettled.remove(r.procId());
      Entry previous = latest.put(r.procId(), new Entry(r, segmentId));
      if (previous != null) {
        unlink(r.procId(), previous);
      }
      SegmentLive live = liveBySegment.computeIfAbsent(segmentId, id -> new SegmentLive());
      live.procIds.add(r.procId());
      live.bytes += sizeOf(r);
      maxProcId = Math.max(maxProcId, r.procId());
    }
    for (int i = 0; i < batch.deleteCount(); i++) {
      long procId = batch.deleteAt(i);
      unsettled.remove(procId);
      Entry previous = latest.remove(procId);
      if (previous != null) {
        unlink(procId, previous);
      }
    }
    maxProcId = Math.max(maxProcId, batch.maxProcId());
  }

  /** A delta changes the complete record in place, in the segment that anchors it. */
  private void applyDelta(StoreRecord delta) {
    Entry previous = latest.get(delta.procId());
    maxProcId = Math.max(maxProcId, delta.procId());
    if (previous == null) {
      if (!replaying) {
        delta.appliedTo(null); // throws, naming the procedure
      }
      unsettled.add(delta.procId());
      return;
    }
    StoreRecord merged = delta.appliedTo(previous.record());
    latest.put(delta.procId(), new Entry(merged, previous.segmentId()));
    SegmentLive live = liveBySegment.get(previous.segmentId());
    live.bytes += sizeOf(merged) - sizeOf(previous.record());
  }

  /**
   * Ends the replay of the segments: from now on a delta that meets no record is refused. Returns
   * the procIds of the replayed deltas that met no record and that no later complete write or
   * delete settled, ascending: records whose kept parts are missing.
   */
  synchronized List<Long> finishReplay() {
    replaying = false;
    return new ArrayList<>(unsettled);
  }

  synchronized long maxProcId() {
    return maxProcId;
  }

  /** Number of live procedures. */
  synchronized int size() {
    return latest.size();
  }

  /** Number of procedures whose latest version is in {@code segmentId}. */
  synchronized int liveCount(long segmentId) {
    SegmentLive live = liveBySegment.get(segmentId);
    return live == null ? 0 : live.procIds.size();
  }

  /** Estimated bytes of the latest versions held by {@code segmentId}. */
  synchronized long liveBytes(long segmentId) {
    SegmentLive live = liveBySegment.get(segmentId);
    return live == null ? 0 : live.bytes;
  }

  /** The latest versions held by {@code segmentId}, in ascending procId order. */
  synchronized List<StoreRecord> liveRecordsIn(long segmentId) {
    SegmentLive live = liveBySegment.get(segmentId);
    if (live == null) {
      return List.of();
    }
    List<StoreRecord> records = new ArrayList<>(live.procIds.size());
    for (Long procId : live.procIds) {
      records.add(latest.get(procId).record());
    }
    records.sort(Comparator.comparingLong(StoreRecord::procId));
    return records;
  }

  /** Every live record in ascending procId order, and the highest procId. */
  synchronized StoreContents contents() {
    List<StoreRecord> records = new ArrayList<>(latest.size());
    for (Entry e : latest.values()) {
      records.add(e.record());
    }
    records.sort(Comparator.comparingLong(StoreRecord::procId));
    return new StoreContents(records, maxProcId);
  }

  static long sizeOf(StoreRecord r) {
    return r.bytes() + RECORD_OVERHEAD_BYTES;
  }

  private void unlink(long procId, Entry previous) {
    SegmentLive live = liveBySegment.get(previous.segmentId());
    live.procIds.remove(procId);
    live.bytes -= sizeOf(previous.record());
    if (live.procIds.isEmpty()) {
      liveBySegment.remove(previous.segmentId());
    }
  }
}
