package dev.baton.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.datanode.DataNodeState;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The kill-point matrix on one 3-ConfigNode, 4-DataNode process cluster: a procedure is held at
 * each named state of MigrateRegion and of RemoveDataNode (and in its child migrations), by
 * stalling the DataNode command of that state or, for a state that sends none, by a ConfigNode
 * fault hold ({@link Holds}); the leader is SIGKILLed there, the stall released, the killed node
 * restarted; the procedure must complete, and every invariant hold.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class LeaderKillMatrixTest extends SharedClusterTest {
  static final int DATANODES = 4;

  /** The DataNode RemoveDataNode takes out; the migrations of the first test avoid it. */
  static final int REMOVED = 4;

  LeaderKillMatrixTest() {
    super(3, DATANODES, Holds.FAULTS);
  }

  @Test
  @Order(1)
  void migrateRegionCompletesAfterLeaderKillAtEachState() throws Exception {
    for (String state : MigrateKillPoints.STATES) {
      Move m = Move.ofLeader(cluster, List.of(1, 2, 3));
      MigrateKillPoints.Held held = MigrateKillPoints.submitHeldAt(cluster, m, state);
      long id = held.procId();
      // at the first DataNode state, a second move of the same region waits for the region lock
      Long back =
          state.equals("ADD_PEER")
              ? cluster.procedures().submit("MigrateRegion", m.reversed().args())
              : null;
      if (back != null) {
        JsonNode b = cluster.procedures().get(back);
        assertEquals("VALIDATE", b.path("step").asText(), b::toString);
        assertFalse(b.get("finished").asBoolean(), b::toString);
      }

      Drills.Failover f = Drills.killLeader(cluster);
      held.release();
      Drills.restartAndAwaitFollower(cluster, f.oldLeader());

      JsonNode done = Drills.awaitFinished(cluster, id);
      assertEquals("SUCCESS", done.get("state").asText(), () -> state + ": " + done);
      List<Integer> replicas = Drills.replicas(Drills.region(cluster, m.regionId()));
      if (back == null) {
        assertTrue(replicas.contains(m.to()) && !replicas.contains(m.from()), replicas::toString);
      } else {
        JsonNode b = Drills.awaitFinished(cluster, back);
        assertEquals("SUCCESS", b.get("state").asText(), b::toString);
        assertTrue(replicas.contains(m.from()) && !replicas.contains(m.to()), replicas::toString);
      }
    }
    Drills.assertInvariants(cluster);
  }

  /**
   * Kills the leader while it holds {@code procId} (any procedure if 0) at {@code at}, the node
   * that leads next armed with {@code next}; restarts the killed node.
   */
  private void killHeldAt(Holds.Hold at, long procId, Holds.Hold... next) throws Exception {
    Holds.awaitHeld(cluster, at, procId);
    Holds.armFollowers(cluster, cluster.leader(), next);
    Drills.Failover f = Drills.killLeader(cluster);
    Drills.restartAndAwaitFollower(cluster, f.oldLeader());
  }

  @Test
  @Order(2)
  void removeDataNodeCompletesAfterLeaderKillsAtEachStateAndInItsChildren() throws Exception {
    Holds.Hold markRemoving = new Holds.Hold("RemoveDataNode", "MARK_REMOVING");
    Holds.Hold migrate = new Holds.Hold("RemoveDataNode", "MIGRATE");
    Holds.Hold remove = new Holds.Hold("RemoveDataNode", "REMOVE");
    Holds.Hold childUpdate = new Holds.Hold("MigrateRegion", "UPDATE_METADATA");
    DataNodeClient removed = cluster.dataNode(REMOVED);
    // 1. VALIDATE: RemoveDataNode waits for the node lock a migration onto the node holds
    Move onto = Move.ofLeader(cluster, List.of(REMOVED));
    removed.stallStep("CATCH_UP");
    long migration = cluster.procedures().submit("MigrateRegion", onto.args());
    Drills.awaitHeldAt(cluster, migration, "CATCH_UP", removed);
    // submitted once the migration holds its locks (together, either may take the node first)
    long id =
        cluster
            .procedures()
            .submit("RemoveDataNode", ClusterProcedures.args("dataNodeId", REMOVED));
    NodeApiClient leaderApi = cluster.client(cluster.http(cluster.leader()));
    await("RemoveDataNode " + id + " waits for the node lock")
        .atMost(Drills.REACH)
        .pollInterval(Drills.POLL)
        .until(() -> leaderApi.get("/api/procedures/" + id).path("waitReason").isTextual());
    assertEquals("VALIDATE", cluster.procedures().get(id).path("step").asText());
    for (int dn = 1; dn < REMOVED; dn++) {
      cluster.dataNode(dn).stallStep("ADD_PEER");
    }
    Holds.armFollowers(cluster, cluster.leader(), markRemoving);
    Drills.Failover f = Drills.killLeader(cluster);
    removed.stallStep("REMOVE_FROM_SOURCE"); // lets CATCH_UP through, holds the next kill point
    Drills.restartAndAwaitFollower(cluster, f.oldLeader());
    assertEquals("SUCCESS", Drills.awaitFinished(cluster, migration).get("state").asText());

    // 2. MARK_REMOVING and MIGRATE (metadata only) under fault holds
    killHeldAt(markRemoving, id, migrate);
    killHeldAt(migrate, id);

    // 3. its child migrations held adding peers on the remaining DataNodes
    Drills.awaitChildHeldAt(cluster, id, "ADD_PEER");
    JsonNode parent = cluster.procedures().get(id);
    assertEquals("WAITING", parent.get("state").asText(), parent::toString);
    f = Drills.killLeader(cluster);
    for (int dn = 1; dn < REMOVED; dn++) {
      cluster.dataNode(dn).resetFaults();
    }
    Drills.restartAndAwaitFollower(cluster, f.oldLeader());

    // 4. and then removing their replicas from the leaving DataNode
    Drills.awaitChildHeldAt(cluster, id, "REMOVE_FROM_SOURCE");
    Holds.armFollowers(cluster, cluster.leader(), childUpdate);
    f = Drills.killLeader(cluster);
    removed.resetFaults();
    Drills.restartAndAwaitFollower(cluster, f.oldLeader());

    // 5. a child recording the new placement, then the parent removing the node (metadata only)
    killHeldAt(childUpdate, 0, remove);
    killHeldAt(remove, id);

    JsonNode done = Drills.awaitFinished(cluster, id);
    assertEquals("SUCCESS", done.get("state").asText(), done::toString);
    for (JsonNode dn : cluster.api().get("/api/metadata").get("dataNodes")) {
      assertTrue(dn.get("id").asInt() != REMOVED, "DataNode " + REMOVED + " is still registered");
    }
    assertTrue(removed.state().regions().isEmpty(), () -> "still hosts regions");
    Drills.assertChildrenKept(cluster, id);
    Drills.assertInvariants(cluster);
  }

  @Test
  @Order(3)
  void migrateRegionReRunsAStepWhoseEffectLandedButWhoseRecordDidNot() throws Exception {
    Move m = Move.ofLeader(cluster, List.of(1, 2, 3));
    DataNodeClient source = cluster.dataNode(m.from());
    source.stallStep("REMOVE_FROM_SOURCE");
    long id = cluster.procedures().submit("MigrateRegion", m.args());
    Drills.awaitHeldAt(cluster, id, "REMOVE_FROM_SOURCE", source);

    // with both followers dead the leader can apply the step on the DataNode, never record it (a
    // frozen follower would not do: its kernel still takes in the record, and hands it over later)
    String leader = cluster.leader();
    long term = cluster.term(leader);
    List<String> followers = cluster.nodeIds().stream().filter(n -> !n.equals(leader)).toList();
    for (String f : followers) {
      cluster.kill(f);
    }
    source.resetFaults();
    await("REMOVE_FROM_SOURCE of " + id + " applied on DataNode " + m.from())
        .atMost(Drills.REACH)
        .pollInterval(Drills.POLL)
        .until(
            () ->
                source.state().ledger().stream()
                    .anyMatch(e -> e.procId() == id && e.step().equals("REMOVE_FROM_SOURCE")));
    cluster.kill(leader);
    for (String f : followers) {
      cluster.restart(f);
    }
    cluster.awaitLeader(Set.of(leader), term);
    Drills.restartAndAwaitFollower(cluster, leader);

    JsonNode done = Drills.awaitFinished(cluster, id);
    assertEquals("SUCCESS", done.get("state").asText(), done::toString);
    List<Integer> replicas = Drills.replicas(Drills.region(cluster, m.regionId()));
    assertTrue(replicas.contains(m.to()) && !replicas.contains(m.from()), replicas::toString);
    DataNodeState after = source.state();
    assertTrue(
        after.duplicates().stream()
            .anyMatch(d -> d.procId() == id && d.step().equals("REMOVE_FROM_SOURCE")),
        () ->
            "the new leader re-ran the unrecorded step, answered from the DataNode's ledger; "
                + "ledger "
                + after.ledger().stream().filter(e -> e.procId() == id).toList()
                + " duplicates "
                + after.duplicates()
                + " rejected "
                + after.rejected());
    Drills.assertInvariants(cluster);
  }
}
