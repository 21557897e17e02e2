package dev.baton.confignode.procedures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.datanode.DataNodeServer;
import dev.baton.confignode.datanode.LedgerEntry;
import dev.baton.confignode.datanode.RegionKind;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import dev.baton.procedure.ProcedureInfo;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CreateDatabase on a 3-node ConfigNode cluster with 3 in-process DataNodes: the replicas it
 * creates match the metadata it commits, and a failure rolls back to nothing.
 */
@Timeout(180)
class CreateDatabaseTest {
  @RegisterExtension static final SimClusterExtension CLUSTER = new SimClusterExtension(3, 3);

  private static SimCluster cluster() {
    return CLUSTER.cluster();
  }

  @Test
  void createsEveryReplicaOnItsDataNodeAndCommitsMatchingMetadata() throws Exception {
    long term = cluster().leaderContext().term();
    long id =
        cluster()
            .submit(
                "CreateDatabase",
                "name",
                "sales",
                "schemaRegions",
                1,
                "dataRegions",
                2,
                "replication",
                2);
    ProcedureInfo done = cluster().awaitSuccess(id);
    assertEquals("COMMIT", done.stepName());

    ClusterMetadata.View meta = cluster().metadata();
    ClusterMetadata.Database db = meta.database("sales").orElseThrow();
    assertEquals(3, db.regionIds().size(), db.toString());
    Map<RegionKind, Integer> kinds = new HashMap<>();
    for (int regionId : db.regionIds()) {
      ClusterMetadata.Region r = meta.region(regionId).orElseThrow();
      assertEquals("sales", r.database());
      assertEquals(2, r.replicas().size(), r.toString());
      assertTrue(cluster().dataNodeIds().containsAll(r.replicas()), r.toString());
      kinds.merge(r.kind(), 1, Integer::sum);
    }
    assertEquals(Map.of(RegionKind.SCHEMA, 1, RegionKind.DATA, 2), kinds);

    int hosted = 0;
    for (int dn : cluster().dataNodeIds()) {
      hosted += cluster().dataNodeServer(dn).state().regionsOf("sales").size();
    }
    assertEquals(6, hosted, "3 regions x replication 2");
    cluster().assertDataNodesMatchMetadata();
    cluster().assertCommandsCarry(term, Set.of(id));
    cluster().awaitMetadataReplicated();
  }

  @Test
  void regionsSpreadOverTheLeastLoadedDataNodes() throws Exception {
    Map<Integer, Integer> load = load();
    assertEquals(1, Set.copyOf(load.values()).size(), "precondition: balanced " + load);
    long id =
        cluster()
            .submit(
                "CreateDatabase",
                "name",
                "spread",
                "schemaRegions",
                1,
                "dataRegions",
                2,
                "replication",
                1);
    cluster().awaitSuccess(id);
    ClusterMetadata.View meta = cluster().metadata();
    Set<Integer> used =
        meta.database("spread").orElseThrow().regionIds().stream()
            .map(r -> meta.region(r).orElseThrow().replicas().get(0))
            .collect(Collectors.toSet());
    assertEquals(3, used.size(), "3 single-replica regions on 3 different DataNodes");
    cluster().assertDataNodesMatchMetadata();
  }

  @Test
  void aFailedRegionCreationRollsBackEveryReplicaAndLeavesNoMetadata() throws Exception {
    long term = cluster().leaderContext().term();
    // Replication 3 puts every region on every DataNode, least loaded first (ties by id); the
    // DataNode last in that order fails, so the replicas before it are created and must be undone.
    int last = mostLoadedDataNode();
    long failuresBefore = cluster().dataNode(last).state().faults().injectedFailures();
    cluster().dataNode(last).failNext(1);

    long id =
        cluster()
            .submit(
                "CreateDatabase",
                "name",
                "doomed",
                "schemaRegions",
                1,
                "dataRegions",
                1,
                "replication",
                3);
    ProcedureInfo done = cluster().awaitRolledBack(id);
    assertTrue(done.failure().contains("CREATE_REGIONS"), done.failure());
    assertEquals(failuresBefore + 1, cluster().dataNode(last).state().faults().injectedFailures());

    ClusterMetadata.View meta = cluster().metadata();
    assertTrue(meta.database("doomed").isEmpty(), "no database metadata");
    assertTrue(
        meta.regions().stream().noneMatch(r -> r.database().equals("doomed")),
        "no region metadata");
    for (int dn : cluster().dataNodeIds()) {
      DataNodeServer server = cluster().dataNodeServer(dn);
      assertEquals(List.of(), server.state().regionsOf("doomed"), "replicas on DataNode " + dn);
    }
    List<LedgerEntry> commands = cluster().ledger(Set.of(id));
    List<LedgerEntry> created =
        commands.stream().filter(e -> e.command().equals("create_region")).toList();
    assertEquals(2, created.size(), "created on the two DataNodes before the failing one");
    for (LedgerEntry c : created) {
      assertTrue(
          commands.stream()
              .anyMatch(
                  e ->
                      e.command().equals("delete_region")
                          && e.step().equals("UNDO_" + c.step())
                          && e.time() >= c.time()),
          "rollback deleted the replica created by " + c.step());
    }
    cluster().assertDataNodesMatchMetadata();
    cluster().assertCommandsCarry(term, Set.of(id));
  }

  @Test
  void moreReplicasThanDataNodesFailsBeforeTouchingAnyDataNode() throws Exception {
    long id = cluster().submit("CreateDatabase", "name", "toobig", "replication", 4);
    ProcedureInfo done = cluster().awaitRolledBack(id);
    assertTrue(done.failure().contains("needs 4 active DataNodes"), done.failure());
    assertEquals(List.of(), cluster().ledger(Set.of(id)), "no DataNode command was sent");
    assertTrue(cluster().metadata().database("toobig").isEmpty());
  }

  @Test
  void anExistingNameFailsAndLeavesTheDatabaseAlone() throws Exception {
    cluster().awaitSuccess(cluster().submit("CreateDatabase", "name", "twice"));
    ClusterMetadata.Database before = cluster().metadata().database("twice").orElseThrow();

    long second = cluster().submit("CreateDatabase", "name", "twice");
    ProcedureInfo done = cluster().awaitRolledBack(second);
    assertTrue(done.failure().contains("database twice exists"), done.failure());
    assertEquals(before, cluster().metadata().database("twice").orElseThrow());
    assertEquals(List.of(), cluster().ledger(Set.of(second)));
    cluster().assertDataNodesMatchMetadata();
  }

  /** The DataNode a replication-3 allocation visits last: most replicas, then highest id. */
  private static int mostLoadedDataNode() throws Exception {
    Map<Integer, Integer> load = load();
    return load.keySet().stream()
        .max(Comparator.comparingInt((Integer dn) -> load.get(dn)).thenComparingInt(dn -> dn))
        .orElseThrow();
  }

  /** Replicas per DataNode in the metadata. */
  private static Map<Integer, Integer> load() throws Exception {
    Map<Integer, Integer> load = new HashMap<>();
    for (int dn : cluster().dataNodeIds()) {
      load.put(dn, 0);
    }
    for (ClusterMetadata.Region r : cluster().metadata().regions()) {
      r.replicas().forEach(dn -> load.merge(dn, 1, Integer::sum));
    }
    return load;
  }
}
