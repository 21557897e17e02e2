package dev.baton.confignode.testing;

import dev.baton.confignode.meta.ClusterMetadata;

/** Databases that tests create on a {@link SimCluster}. */
public final class TestDatabases {
  private TestDatabases() {}

  /**
   * Creates a database of one schema and one data region with {@code replication} replicas each,
   * waits for its success, and returns its first region.
   */
  public static ClusterMetadata.Region firstRegionOfNewDatabase(
      SimCluster cluster, String name, int replication) {
    cluster.awaitSuccess(
        cluster.submit(
            "CreateDatabase",
            "name",
            name,
            "schemaRegions",
            1,
            "dataRegions",
            1,
            "replication",
            replication));
    ClusterMetadata.View meta = cluster.metadata();
    int regionId = meta.database(name).orElseThrow().regionIds().get(0);
    return meta.region(regionId).orElseThrow();
  }
}
