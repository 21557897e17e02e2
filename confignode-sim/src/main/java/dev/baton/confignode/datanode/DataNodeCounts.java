package dev.baton.confignode.datanode;

/**
 * Totals since the data directory was created. The lists in {@link DataNodeState} are bounded;
 * these counts are not.
 *
 * @param applied commands applied (ledger entries ever written)
 * @param duplicates commands answered from the ledger
 * @param staleRejected commands refused for a stale term
 * @param invalidations cache invalidations applied
 * @param superseded commands refused because a later command of their procedure was applied
 */
public record DataNodeCounts(
    long applied, long duplicates, long staleRejected, long invalidations, long superseded) {
  static final DataNodeCounts ZERO = new DataNodeCounts(0, 0, 0, 0, 0);

  DataNodeCounts plusApplied(boolean invalidation) {
    return new DataNodeCounts(
        applied + 1, duplicates, staleRejected, invalidations + (invalidation ? 1 : 0), superseded);
  }

  DataNodeCounts plusDuplicate() {
    return new DataNodeCounts(applied, duplicates + 1, staleRejected, invalidations, superseded);
  }

  DataNodeCounts plusStaleRejected() {
    return new DataNodeCounts(applied, duplicates, staleRejected + 1, invalidations, superseded);
  }

  DataNodeCounts plusSuperseded() {
    return new DataNodeCounts(applied, duplicates, staleRejected, invalidations, superseded + 1);
  }
}
