package dev.baton.confignode.datanode;

import java.util.List;

/**
 * A DataNode's durable state as written in its snapshot file: everything but the faults.
 *
 * @param format version of this layout, {@link #FORMAT}
 * @param seq the sequence number of the last journal line this snapshot contains
 */
record DurableState(
    int format,
    int dataNodeId,
    long seq,
    long highestTerm,
    List<RegionReplica> regions,
    List<LedgerEntry> ledger,
    List<RejectedCommand> rejected,
    List<DuplicateCommand> duplicates,
    List<CacheInvalidation> invalidations,
    DataNodeCounts counts) {

  static final int FORMAT = 1;
}
