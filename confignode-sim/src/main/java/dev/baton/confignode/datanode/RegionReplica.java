package dev.baton.confignode.datanode;

/**
 * One replica of a region hosted by a DataNode.
 *
 * @param regionId cluster-wide id of the region (its consensus group)
 * @param database the database the region belongs to
 * @param kind schema or data
 * @param role leader or follower within the region's group
 * @param dataVersion how far this replica has caught up; only ever grows
 */
public record RegionReplica(
    int regionId, String database, RegionKind kind, RegionRole role, long dataVersion) {

  public RegionReplica {
    Checks.nonNegative("regionId", regionId);
    Checks.notBlank("database", database);
    Checks.notNull("kind", kind);
    Checks.notNull("role", role);
    Checks.nonNegative("dataVersion", dataVersion);
  }

  RegionReplica withRole(RegionRole newRole) {
    return new RegionReplica(regionId, database, kind, newRole, dataVersion);
  }

  RegionReplica withDataVersion(long version) {
    return new RegionReplica(regionId, database, kind, role, version);
  }
}
