package dev.baton.confignode.procedures;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.datanode.FaultSettings;
import dev.baton.confignode.datanode.LedgerEntry;
import dev.baton.confignode.datanode.RegionReplica;
import dev.baton.confignode.datanode.RegionRole;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import dev.baton.confignode.testing.TestDatabases;
import dev.baton.procedure.ProcedureInfo;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MigrateRegion on a 3-node ConfigNode cluster with 3 in-process DataNodes: a replica moves (and
 * leadership with it), metadata and DataNode tables agree; failures before the source replica is
 * removed undo everything.
 */
@Timeout(180)
class MigrateRegionTest {
  @RegisterExtension static final SimClusterExtension CLUSTER = new SimClusterExtension(3, 3);

  private static SimCluster cluster() {
    return CLUSTER.cluster();
  }

  /** A new database with one schema region of replication 2; returns that region. */
  private static ClusterMetadata.Region regionOfNewDatabase(String name) {
    return TestDatabases.firstRegionOfNewDatabase(cluster(), name, 2);
  }

  /** The DataNode without a replica of {@code r}. */
  private static int spare(ClusterMetadata.Region r) {
    return cluster().dataNodeIds().stream()
        .filter(dn -> !r.replicas().contains(dn))
        .findFirst()
        .orElseThrow();
  }

  private static int otherReplica(ClusterMetadata.Region r, int dn) {
    return r.replicas().stream().filter(d -> d != dn).findFirst().orElseThrow();
  }

  private static long migrate(int regionId, int from, int to) throws Exception {
    return cluster().submit("MigrateRegion", "regionId", regionId, "from", from, "to", to);
  }

  private static RegionReplica replica(int dn, int regionId) {
    return cluster().dataNodeServer(dn).state().region(regionId).orElseThrow();
  }

  private static boolean hosts(int dn, int regionId) {
    return cluster().dataNodeServer(dn).state().region(regionId).isPresent();
  }

  @Test
  void movingTheLeaderReplicaMovesLeadershipToTheTarget() throws Exception {
    ClusterMetadata.Region r = regionOfNewDatabase("lead");
    int from = r.leader();
    int stays = otherReplica(r, from);
    int to = spare(r);
    long term = cluster().leaderContext().term();

    long id = migrate(r.id(), from, to);
    ProcedureInfo done = cluster().awaitSuccess(id);
    assertEquals("UPDATE_METADATA", done.stepName());

    ClusterMetadata.Region moved = cluster().metadata().region(r.id()).orElseThrow();
    assertEquals(Set.of(stays, to), Set.copyOf(moved.replicas()), moved.toString());
    assertEquals(to, moved.leader(), "leadership moved with the replica");
    assertFalse(hosts(from, r.id()), "source replica removed");
    assertEquals(RegionRole.LEADER, replica(to, r.id()).role());
    assertEquals(id, replica(to, r.id()).dataVersion(), "target caught up to the procedure's mark");
    assertEquals(RegionRole.FOLLOWER, replica(stays, r.id()).role());
    cluster().assertDataNodesMatchMetadata();
    cluster().assertCommandsCarry(term, Set.of(id));
    cluster().awaitMetadataReplicated();
  }

  @Test
  void movingAFollowerReplicaLeavesTheLeaderInPlace() throws Exception {
    ClusterMetadata.Region r = regionOfNewDatabase("follow");
    int from = otherReplica(r, r.leader());
    int to = spare(r);

    long id = migrate(r.id(), from, to);
    cluster().awaitSuccess(id);

    ClusterMetadata.Region moved = cluster().metadata().region(r.id()).orElseThrow();
    assertEquals(Set.of(r.leader(), to), Set.copyOf(moved.replicas()));
    assertEquals(r.leader(), moved.leader());
    assertEquals(RegionRole.FOLLOWER, replica(to, r.id()).role());
    assertEquals(RegionRole.LEADER, replica(r.leader(), r.id()).role());
    assertFalse(hosts(from, r.id()));
    assertTrue(
        cluster().ledger(Set.of(id)).stream().noneMatch(e -> e.command().equals("set_region_role")),
        "no role changes when a follower moves");
    cluster().assertDataNodesMatchMetadata();
  }

  @Test
  void aFailingTargetRollsTheMigrationBack() throws Exception {
    ClusterMetadata.Region r = regionOfNewDatabase("target");
    int to = spare(r);
    cluster().dataNode(to).failNext(1);

    long id = migrate(r.id(), r.leader(), to);
    ProcedureInfo done = cluster().awaitRolledBack(id);
    assertTrue(done.failure().contains("ADD_PEER"), done.failure());

    assertEquals(r, cluster().metadata().region(r.id()).orElseThrow(), "metadata unchanged");
    assertFalse(hosts(to, r.id()), "no replica left on the target");
    assertEquals(RegionRole.LEADER, replica(r.leader(), r.id()).role());
    cluster().assertDataNodesMatchMetadata();
  }

  @Test
  void aFailureAfterTheLeaderSwitchHandsLeadershipBack() throws Exception {
    ClusterMetadata.Region r = regionOfNewDatabase("switch");
    int from = r.leader();
    int to = spare(r);
    long term = cluster().leaderContext().term();

    // The source's first command is SWITCH_LEADER@source, after the target has become leader.
    cluster().dataNode(from).stall();
    long id = migrate(r.id(), from, to);
    await()
        .atMost(SimCluster.WAIT)
        .until(() -> cluster().dataNode(from).state().faults().waiting() == 1);
    assertEquals(RegionRole.LEADER, replica(to, r.id()).role(), "the target leads meanwhile");
    // fail the held command, then let commands through
    cluster().dataNode(from).injectFaults(new FaultSettings(1, null, false));

    ProcedureInfo done = cluster().awaitRolledBack(id);
    assertTrue(done.failure().contains("SWITCH_LEADER"), done.failure());
    assertEquals(r, cluster().metadata().region(r.id()).orElseThrow(), "metadata unchanged");
    assertEquals(RegionRole.LEADER, replica(from, r.id()).role(), "leadership handed back");
    assertFalse(hosts(to, r.id()), "the added peer is removed again");
    List<String> undone =
        cluster().ledger(Set.of(id)).stream()
            .map(LedgerEntry::step)
            .filter(s -> s.startsWith("UNDO_"))
            .sorted()
            .toList();
    assertEquals(
        List.of("UNDO_ADD_PEER", "UNDO_SWITCH_LEADER@source", "UNDO_SWITCH_LEADER@target"), undone);
    cluster().assertDataNodesMatchMetadata();
    cluster().assertCommandsCarry(term, Set.of(id));
  }

  @Test
  void aFailedSourceRemovalIsRetriedUntilTheMigrationCompletes() throws Exception {
    ClusterMetadata.Region r = regionOfNewDatabase("retry");
    int from = otherReplica(r, r.leader()); // a follower: its first command is REMOVE_FROM_SOURCE
    int to = spare(r);
    long failuresBefore = cluster().dataNode(from).state().faults().injectedFailures();
    cluster().dataNode(from).failNext(1);

    long id = migrate(r.id(), from, to);
    ProcedureInfo done = cluster().awaitSuccess(id);
    assertEquals(failuresBefore + 1, cluster().dataNode(from).state().faults().injectedFailures());
    assertEquals("UPDATE_METADATA", done.stepName(), "the steps after the retried one ran");

    ClusterMetadata.Region moved = cluster().metadata().region(r.id()).orElseThrow();
    assertEquals(Set.of(r.leader(), to), Set.copyOf(moved.replicas()), moved.toString());
    assertFalse(hosts(from, r.id()), "source replica removed by the retry");
    assertTrue(
        cluster().ledger(Set.of(id)).stream().noneMatch(e -> e.step().startsWith("UNDO_")),
        "nothing rolled back");
    cluster().assertDataNodesMatchMetadata();
  }

  /**
   * The target stalls ADD_PEER past the ConfigNode's request timeout: the step fails, the rollback
   * sends UNDO_ADD_PEER (same term), the procedure ends ROLLEDBACK. When the stalled ADD_PEER is
   * finally released it must not create the replica the metadata no longer expects.
   */
  @Test
  void addPeerReleasedAfterItsUndoIsRefused() throws Exception {
    ClusterMetadata.Region r = regionOfNewDatabase("overtaken");
    int to = spare(r);
    cluster().dataNode(to).stallStep("ADD_PEER");

    long id = migrate(r.id(), r.leader(), to);
    cluster().awaitRolledBack(id);
    cluster().dataNode(to).releaseStall();

    SimCluster.waiting()
        .until(
            () ->
                cluster().dataNodeServer(to).state().superseded().stream()
                    .anyMatch(c -> c.procId() == id && c.step().equals("ADD_PEER")));
    assertFalse(hosts(to, r.id()), "the overtaken ADD_PEER created a replica after its undo");
    assertTrue(
        cluster().ledger(Set.of(id)).stream().noneMatch(e -> e.step().equals("ADD_PEER")),
        "ADD_PEER is not in any ledger");
    cluster().assertDataNodesMatchMetadata();
  }

  @Test
  void invalidMigrationsFailBeforeTouchingAnyDataNode() throws Exception {
    ClusterMetadata.Region r = regionOfNewDatabase("invalid");
    int from = r.leader();
    int to = spare(r);
    assertRejected(migrate(r.id(), from, otherReplica(r, from)), "already has a replica");
    assertRejected(migrate(r.id(), to, from), "has no replica on DataNode " + to);
    assertRejected(migrate(999_999, from, to), "no region 999999");
    assertRejected(migrate(r.id(), from, 42), "no DataNode 42");
    assertEquals(r, cluster().metadata().region(r.id()).orElseThrow());
    cluster().assertDataNodesMatchMetadata();
  }

  private static void assertRejected(long id, String why) throws Exception {
    ProcedureInfo done = cluster().awaitRolledBack(id);
    assertTrue(done.failure().contains(why), () -> done.failure() + " should say " + why);
    assertEquals(List.of(), cluster().ledger(Set.of(id)), "no DataNode command");
  }
}
