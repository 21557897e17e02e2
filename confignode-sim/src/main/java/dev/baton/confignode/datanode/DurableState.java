package dev.baton.confignode.datanode;

import java.util.List;

/**
 * A DataNode's durable state as written in its snapshot file: everything but the faults.
 *
 * @param format version of this layout, {@link #FORMAT}
 * @param seq the sequence number of the last journal line this snapshot contains
 * @param newest per procedure, the newest command applied ({@link CommandOrder})
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
    List<SupersededCommand> superseded,
    List<OrderMark> newest,
    DataNodeCounts counts) {

  /** 2: ledger entries carry a seq; the superseded log and the per-procedure order marks. */
  static final int FORMAT = 2;
}
