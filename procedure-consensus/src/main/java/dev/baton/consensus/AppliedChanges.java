package dev.baton.consensus;

import dev.baton.procedure.store.RecordParts;
import java.util.List;

/**
 * Hears every change of the replicated procedure table as this node applies it: the records each
 * log entry wrote, created or deleted, with the entry's index, so every member reports the same
 * changes under the same positions (an event stream resumable on any node). Called on Ratis' apply
 * thread after the entry is applied, outside the table's monitor: it must return at once (hand the
 * work to a thread of its own).
 */
public interface AppliedChanges {
  /**
   * One record of the table as an entry left it.
   *
   * @param procId the procedure
   * @param data the stored record after the entry; for a deleted record, the last one stored
   * @param parts the record's parts (complete) with {@code data}; decode the two together
   * @param deleted whether the entry deleted it
   */
  record Change(long procId, byte[] data, RecordParts parts, boolean deleted) {
    /** A record without parts. */
    public Change(long procId, byte[] data, boolean deleted) {
      this(procId, data, RecordParts.NONE, deleted);
    }
  }

  /** Entry {@code index} changed {@code changes}, in the order the entry applied them. */
  void applied(long index, List<Change> changes);

  /**
   * The whole table was replaced by a snapshot taken at {@code index} (loaded from disk or
   * installed from the leader): changes before it are not reported one by one.
   */
  void replaced(long index);
}
