package dev.baton.confignode.datanode;

/**
 * Totals since the data directory was created. The lists in {@link DataNodeState} are bounded;
 * these counts are not.
 *
 * @param applied commands applied (ledger entries ever written)
 * @param duplicates commands answered from the ledger
 * @param staleRejected commands refused for a stale term
 * @param invalidations cache invalidations applied
 */
public record DataNodeCounts(
    long applied, long duplicates, long staleRejected, long invalidations) {
  static final DataNodeCounts ZERO = new DataNodeCounts(0, 0, 0, 0);
}
