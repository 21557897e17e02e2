package dev.baton.consensus;

import dev.baton.consensus.proto.ActionResult;
import dev.baton.consensus.proto.AuditRecord;
import dev.baton.consensus.proto.OperatorActionEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The replicated record of operator actions, part of the {@link ProcedureTable} (and of its
 * snapshots): each action entry by its log index, with its outcome once the leader's executor
 * carried it out. Changed only by applied entries, so it is the same on every node. Bounded: beyond
 * {@link #MAX_RECORDS} the oldest action is dropped. Guarded by the table's monitor.
 */
final class AuditTrail {
  /** How many actions the trail keeps; the oldest is dropped beyond it. */
  static final int MAX_RECORDS = 10_000;

  private final LinkedHashMap<Long, AuditRecord> byIndex =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, AuditRecord> eldest) {
          return size() > MAX_RECORDS;
        }
      };

  /** An action entry applied at {@code index}, not decided yet. */
  void requested(long index, OperatorActionEntry action) {
    byIndex.put(index, AuditRecord.newBuilder().setIndex(index).setAction(action).build());
  }

  /**
   * The outcome of the action at {@code result.index}; false (nothing changes) if the trail no
   * longer holds it or it was decided already.
   */
  boolean decided(ActionResult result) {
    AuditRecord r = byIndex.get(result.getIndex());
    if (r == null || r.getDecided()) {
      return false;
    }
    byIndex.put(
        result.getIndex(),
        r.toBuilder()
            .setDecided(true)
            .setOutcome(result.getOutcome())
            .setRefused(result.getRefused())
            .build());
    return true;
  }

  /** Every record, oldest first. */
  List<AuditRecord> records() {
    return new ArrayList<>(byIndex.values());
  }

  /** Replaces the trail with {@code records} (from a snapshot), oldest first. */
  void load(List<AuditRecord> records) {
    byIndex.clear();
    for (AuditRecord r : records) {
      byIndex.put(r.getIndex(), r);
    }
  }

  void clear() {
    byIndex.clear();
  }
}
