package dev.baton.confignode.procedures;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.datanode.CacheInvalidation;
import dev.baton.confignode.datanode.FaultSettings;
import dev.baton.confignode.datanode.LedgerEntry;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import dev.baton.procedure.ProcedureInfo;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * DeleteDatabase on a 3-node ConfigNode cluster with 3 in-process DataNodes: caches invalidated
 * everywhere, replicas and metadata gone; a failure before the deletions rolls back and keeps the
 * database, one during the deletions is retried until it succeeds.
 */
@Timeout(180)
class DeleteDatabaseTest {
  @RegisterExtension static final SimClusterExtension CLUSTER = new SimClusterExtension(3, 3);

  private static SimCluster cluster() {
    return CLUSTER.cluster();
  }

  private static long create(String name, int replication) throws Exception {
    long id = cluster().submit("CreateDatabase", "name", name, "replication", replication);
    cluster().awaitSuccess(id);
    return id;
  }

  private static int replicasOf(String database) {
    int n = 0;
    for (int dn : cluster().dataNodeIds()) {
      n += cluster().dataNodeServer(dn).state().regionsOf(database).size();
    }
    return n;
  }

  @Test
  void invalidatesEveryCacheDeletesEveryReplicaThenTheMetadata() throws Exception {
    long term = cluster().leaderContext().term();
    long created = create("gone", 2);
    assertEquals(6, replicasOf("gone"), "1 schema + 2 data regions, 2 replicas each");

    long id = cluster().submit("DeleteDatabase", "name", "gone");
    ProcedureInfo done = cluster().awaitSuccess(id);
    assertEquals("DELETE_METADATA", done.stepName());

    ClusterMetadata.View meta = cluster().metadata();
    assertTrue(meta.database("gone").isEmpty());
    assertTrue(meta.regions().stream().noneMatch(r -> r.database().equals("gone")));
    assertEquals(0, replicasOf("gone"));
    for (int dn : cluster().dataNodeIds()) {
      List<CacheInvalidation> inv = cluster().dataNodeServer(dn).state().invalidations();
      assertTrue(
          inv.stream().anyMatch(i -> i.database().equals("gone") && i.procId() == id),
          "cache of DataNode " + dn + " invalidated: " + inv);
    }
    cluster().assertDataNodesMatchMetadata();
    cluster().assertCommandsCarry(term, Set.of(created, id));
    cluster().awaitMetadataReplicated();
  }

  @Test
  void anUnknownDatabaseFailsWithoutTouchingAnyDataNode() throws Exception {
    long id = cluster().submit("DeleteDatabase", "name", "never");
    ProcedureInfo done = cluster().awaitRolledBack(id);
    assertTrue(done.failure().contains("no database never"), done.failure());
    assertEquals(List.of(), cluster().ledger(Set.of(id)));
  }

  @Test
  void aFailedCacheInvalidationRollsBackAndKeepsTheDatabase() throws Exception {
    create("kept", 2);
    ClusterMetadata.Database before = cluster().metadata().database("kept").orElseThrow();
    cluster().dataNode(2).failNext(1);

    long id = cluster().submit("DeleteDatabase", "name", "kept");
    ProcedureInfo done = cluster().awaitRolledBack(id);
    assertTrue(done.failure().contains("INVALIDATE_CACHE"), done.failure());

    assertEquals(before, cluster().metadata().database("kept").orElseThrow());
    assertEquals(6, replicasOf("kept"), "every replica is still there");
    assertTrue(
        cluster().ledger(Set.of(id)).stream().noneMatch(e -> e.command().equals("delete_region")),
        "no replica was deleted");
    cluster().assertDataNodesMatchMetadata();
  }

  @Test
  void aFailedRegionDeletionIsRetriedNotRolledBack() throws Exception {
    create("stubborn", 3);
    assertEquals(9, replicasOf("stubborn"), "every region on every DataNode");
    long failuresBefore = cluster().dataNode(1).state().faults().injectedFailures();

    // Caches are invalidated in DataNode order 1, 2, 3. Hold DataNode 3's invalidation; by then
    // DataNode 1 has had its only INVALIDATE_CACHE command, so the next command it gets, and fails,
    // is a region deletion.
    cluster().dataNode(3).stall();
    long id = cluster().submit("DeleteDatabase", "name", "stubborn");
    await()
        .atMost(SimCluster.WAIT)
        .until(() -> cluster().dataNode(3).state().faults().waiting() == 1);
    List<LedgerEntry> atDn1 = cluster().dataNodeServer(1).state().ledger();
    assertTrue(
        atDn1.stream().anyMatch(e -> e.procId() == id && e.command().equals("invalidate_cache")),
        "DataNode 1 was invalidated before DataNode 3");
    cluster().dataNode(1).failNext(1);
    cluster().dataNode(3).injectFaults(new FaultSettings(null, null, false));

    ProcedureInfo done = cluster().awaitSuccess(id);
    assertNull(done.failure(), "the retried step succeeded: no failure remains");
    assertEquals(failuresBefore + 1, cluster().dataNode(1).state().faults().injectedFailures());
    assertTrue(cluster().metadata().database("stubborn").isEmpty());
    assertEquals(0, replicasOf("stubborn"));
    assertFalse(
        cluster().ledger(Set.of(id)).stream().anyMatch(e -> e.command().equals("create_region")),
        "nothing was undone");
    cluster().assertDataNodesMatchMetadata();
  }
}
