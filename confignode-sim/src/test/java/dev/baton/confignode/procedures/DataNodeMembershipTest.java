package dev.baton.confignode.procedures;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.datanode.DataNodeServer;
import dev.baton.confignode.datanode.LedgerEntry;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import dev.baton.consensus.spi.LoopbackPorts;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * AddDataNode and RemoveDataNode on a 3-node ConfigNode cluster with in-process DataNodes. Each
 * test that changes membership brings its own extra DataNode, so the three start-up DataNodes stay
 * and the tests do not depend on each other's order.
 */
@Timeout(180)
class DataNodeMembershipTest {
  @RegisterExtension static final SimClusterExtension CLUSTER = new SimClusterExtension(3, 3);

  /** Ids of the DataNodes the tests add: 10, 11, ... */
  private static final AtomicInteger NEXT_ID = new AtomicInteger(10);

  private static SimCluster cluster() {
    return CLUSTER.cluster();
  }

  /** Starts a DataNode with a new id and registers it; returns its id. */
  private static int addDataNode() throws Exception {
    DataNodeServer dn = cluster().startDataNode(NEXT_ID.getAndIncrement());
    cluster().awaitSuccess(cluster().submit("AddDataNode", "address", dn.address()));
    return dn.id();
  }

  /** Regions whose replicas include {@code dn}, by id. */
  private static Set<Integer> regionsOn(int dn) throws Exception {
    return cluster().metadata().regions().stream()
        .filter(r -> r.replicas().contains(dn))
        .map(ClusterMetadata.Region::id)
        .collect(Collectors.toSet());
  }

  @Test
  void startUpDataNodesAreRegisteredOnceThoughEveryConfigNodeAsks() throws Exception {
    ClusterMetadata.View meta = cluster().metadata();
    for (int id : List.of(1, 2, 3)) {
      ClusterMetadata.DataNode dn = meta.dataNode(id).orElseThrow();
      assertEquals(cluster().dataNodeServer(id).address(), dn.address());
      assertEquals(ClusterMetadata.DataNode.Status.ACTIVE, dn.status());
    }
    // Each of the 3 ConfigNodes submits an AddDataNode per start-up DataNode, all with the
    // address-derived nonce: 3 procedures, not 9.
    List<String> registered =
        cluster().list().stream()
            .filter(p -> p.type().equals("AddDataNode") && p.isSuccess())
            .map(p -> new String(p.result(), StandardCharsets.UTF_8))
            .filter(r -> Set.of("1", "2", "3").contains(r))
            .sorted()
            .toList();
    assertEquals(List.of("1", "2", "3"), registered);
  }

  @Test
  void addDataNodeRegistersANewDataNodeWithTheLeadersTerm() throws Exception {
    long term = cluster().leaderContext().term();
    DataNodeServer dn = cluster().startDataNode(NEXT_ID.getAndIncrement());
    long id = cluster().submit("AddDataNode", "address", dn.address());
    ProcedureInfo done = cluster().awaitSuccess(id);
    assertEquals(Integer.toString(dn.id()), new String(done.result(), StandardCharsets.UTF_8));

    ClusterMetadata.DataNode registered = cluster().metadata().dataNode(dn.id()).orElseThrow();
    assertEquals(dn.address(), registered.address());
    assertEquals(ClusterMetadata.DataNode.Status.ACTIVE, registered.status());
    assertEquals(
        List.of("ping"), cluster().ledger(Set.of(id)).stream().map(e -> e.command()).toList());
    cluster().assertCommandsCarry(term, Set.of(id));
    cluster().awaitMetadataReplicated();
  }

  @Test
  void anUnreachableAddressIsNotRegistered() throws Exception {
    String nowhere = "127.0.0.1:" + LoopbackPorts.free();
    int before = cluster().metadata().dataNodes().size();
    long id = cluster().submit("AddDataNode", "address", nowhere);
    ProcedureInfo done = cluster().awaitRolledBack(id);
    assertTrue(done.failure().contains(nowhere), done.failure());
    assertEquals(before, cluster().metadata().dataNodes().size());
    assertTrue(
        cluster().metadata().dataNodes().stream().noneMatch(d -> d.address().equals(nowhere)));
  }

  @Test
  void aSecondDataNodeWithATakenIdIsRefused(@TempDir Path impostorDir) throws Exception {
    ClusterMetadata.DataNode one = cluster().metadata().dataNode(1).orElseThrow();
    try (DataNodeServer impostor =
        new DataNodeServer(dev.baton.confignode.datanode.DataNodeConfig.of(1, impostorDir))
            .start()) {
      long id = cluster().submit("AddDataNode", "address", impostor.address());
      ProcedureInfo done = cluster().awaitRolledBack(id);
      assertTrue(done.failure().contains("DataNode 1 is registered at"), done.failure());
    }
    assertEquals(one, cluster().metadata().dataNode(1).orElseThrow(), "the first one stays");
  }

  @Test
  void removeDataNodeMigratesEveryRegionOffThenRemovesIt() throws Exception {
    int leaving = addDataNode();
    long term = cluster().leaderContext().term();
    // The new DataNode is the least loaded, so the new database's regions go there first.
    cluster().awaitSuccess(cluster().submit("CreateDatabase", "name", "moving", "replication", 2));
    Set<Integer> hosted = regionsOn(leaving);
    assertFalse(hosted.isEmpty(), "precondition: the leaving DataNode hosts regions");

    long id = cluster().submit("RemoveDataNode", "dataNodeId", leaving);
    ProcedureInfo done = cluster().awaitSuccess(id);
    assertEquals("REMOVE", done.stepName());

    // Children are not queryable once their root finished (only roots are retained); their
    // commands in the DataNode ledgers show them: one MigrateRegion per hosted region.
    Map<Long, Integer> migrations = migrationsOffTheSource(leaving);
    assertEquals(hosted, Set.copyOf(migrations.values()), "every hosted region migrated");
    assertEquals(hosted.size(), migrations.size(), "one child procedure per region");
    Set<Long> ids = new HashSet<>(migrations.keySet());
    ids.add(id);
    ClusterMetadata.View meta = cluster().metadata();
    assertTrue(meta.dataNode(leaving).isEmpty(), "removed from the metadata");
    assertEquals(Set.of(), regionsOn(leaving));
    assertEquals(List.of(), cluster().dataNodeServer(leaving).state().regions());
    for (int regionId : hosted) {
      ClusterMetadata.Region r = meta.region(regionId).orElseThrow();
      assertEquals(2, r.replicas().size(), "still replicated twice: " + r);
    }
    cluster().assertDataNodesMatchMetadata();
    cluster().assertCommandsCarry(term, ids);
    cluster().awaitMetadataReplicated();
  }

  @Test
  void aFailedMigrationRollsTheRemovalBackAndTheDataNodeStaysActive() throws Exception {
    int leaving = addDataNode();
    cluster().awaitSuccess(cluster().submit("CreateDatabase", "name", "staying", "replication", 2));
    Set<Integer> hosted = regionsOn(leaving);
    assertFalse(hosted.isEmpty(), "precondition: the DataNode hosts regions");
    Map<String, String> placementBefore = placement();

    // Every migration target refuses commands until the faults are cleared: a child that runs
    // ADD_PEER fails, and fails the tree; a sibling that had not started by then never starts
    // (FAILED without a failure of its own, nothing to undo).
    for (int dn : cluster().dataNodeIds()) {
      if (dn != leaving) {
        cluster().dataNode(dn).failNext(1_000);
      }
    }
    long id = cluster().submit("RemoveDataNode", "dataNodeId", leaving);
    List<ProcedureInfo> failedChildren =
        await()
            .atMost(SimCluster.WAIT)
            .until(
                () -> cluster().children(id),
                children ->
                    children.size() == hosted.size()
                        && children.stream().allMatch(c -> c.state() == ProcedureState.FAILED)
                        && children.stream().anyMatch(c -> c.failure() != null));
    Set<Long> childIds =
        failedChildren.stream()
            .filter(c -> c.failure() != null)
            .map(ProcedureInfo::procId)
            .collect(Collectors.toSet());
    for (ProcedureInfo child : failedChildren) {
      assertEquals("MigrateRegion", child.type());
      if (child.failure() != null) {
        assertTrue(child.failure().contains("ADD_PEER"), "rolling back: " + child);
      }
    }
    cluster().resetFaults(); // let the rollback of the added peers through

    ProcedureInfo done = cluster().awaitRolledBack(id);
    assertTrue(done.failure().contains("ADD_PEER"), done.failure());
    // each child's added peer was deleted again on its target (the failed ADD_PEER may have been
    // applied partly, so rollback deletes whatever is there)
    Set<Long> undone =
        cluster()
            .ledger(failedChildren.stream().map(ProcedureInfo::procId).collect(Collectors.toSet()))
            .stream()
            .filter(e -> e.step().equals("UNDO_ADD_PEER"))
            .map(LedgerEntry::procId)
            .collect(Collectors.toSet());
    assertEquals(childIds, undone, "every ADD_PEER that ran was undone, no other");
    ClusterMetadata.DataNode dn = cluster().metadata().dataNode(leaving).orElseThrow();
    assertEquals(ClusterMetadata.DataNode.Status.ACTIVE, dn.status(), "marked ACTIVE again");
    assertEquals(hosted, regionsOn(leaving));
    assertEquals(placementBefore, placement(), "every region where it was");
    cluster().assertDataNodesMatchMetadata();
  }

  @Test
  void removingAnUnknownDataNodeFails() throws Exception {
    long id = cluster().submit("RemoveDataNode", "dataNodeId", 99);
    ProcedureInfo done = cluster().awaitRolledBack(id);
    assertTrue(done.failure().contains("no DataNode 99"), done.failure());
    assertEquals(List.of(), cluster().children(id));
  }

  /**
   * The child procedures that removed a replica from {@code dataNode}, from its ledger: procId to
   * region id.
   */
  private static Map<Long, Integer> migrationsOffTheSource(int dataNode) {
    Map<Long, Integer> out = new TreeMap<>();
    for (LedgerEntry e : cluster().dataNodeServer(dataNode).state().ledger()) {
      if (e.step().equals("REMOVE_FROM_SOURCE")) {
        out.put(e.procId(), e.args().path("regionId").asInt());
      }
    }
    return out;
  }

  /** Region id to "replicas / leader", for before-and-after comparisons. */
  private static Map<String, String> placement() throws Exception {
    Map<String, String> out = new TreeMap<>();
    for (ClusterMetadata.Region r : cluster().metadata().regions()) {
      out.put(Integer.toString(r.id()), r.replicas() + " / " + r.leader());
    }
    return out;
  }
}
