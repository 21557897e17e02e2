package dev.baton.confignode.datanode;

import java.util.List;
import java.util.Optional;

/**
 * Everything a DataNode knows, as answered by {@code GET /state}: what tests and the drill check
 * invariants against ("the region tables match the metadata", "no stale-term command was applied").
 * The ledger and the three logs keep the newest entries up to a bound (see {@link DataNodeConfig});
 * {@link #counts()} has the totals.
 *
 * @param id the DataNode's id
 * @param highestTerm the highest ConfigNode term seen
 * @param regions the replicas hosted here, by region id
 * @param ledger applied commands, oldest first
 * @param rejected commands refused for a stale term, oldest first
 * @param duplicates commands answered from the ledger, oldest first
 * @param invalidations schema cache invalidations, oldest first
 * @param superseded commands refused because a later one of their procedure was applied, oldest
 *     first
 * @param counts totals since the data directory was created
 * @param faults injected faults (in memory only)
 */
public record DataNodeState(
    int id,
    long highestTerm,
    List<RegionReplica> regions,
    List<LedgerEntry> ledger,
    List<RejectedCommand> rejected,
    List<DuplicateCommand> duplicates,
    List<CacheInvalidation> invalidations,
    List<SupersededCommand> superseded,
    DataNodeCounts counts,
    FaultState faults) {

  public DataNodeState {
    regions = List.copyOf(regions);
    ledger = List.copyOf(ledger);
    rejected = List.copyOf(rejected);
    duplicates = List.copyOf(duplicates);
    invalidations = List.copyOf(invalidations);
    superseded = List.copyOf(superseded);
  }

  /** The replica of {@code regionId} hosted here, if any. */
  public Optional<RegionReplica> region(int regionId) {
    return regions.stream().filter(r -> r.regionId() == regionId).findFirst();
  }

  /** The replicas of one database hosted here. */
  public List<RegionReplica> regionsOf(String database) {
    return regions.stream().filter(r -> r.database().equals(database)).toList();
  }
}
