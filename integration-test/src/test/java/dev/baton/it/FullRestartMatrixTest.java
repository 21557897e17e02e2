package dev.baton.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.datanode.DataNodeClient;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The kill-point matrix with every ConfigNode SIGKILLed at once and restarted (a full-cluster
 * crash), on one 3-ConfigNode, 4-DataNode process cluster: at each DataNode-facing state of
 * MigrateRegion (with a timed Sleep in flight, whose deadline must survive), during a rollback, and
 * in the child migrations of RemoveDataNode. Each completes or rolls back as designed for its
 * state.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class FullRestartMatrixTest extends SharedClusterTest {
  static final int REMOVED = 4;

  /** The Sleep in flight during the first full restart. */
  static final long SLEEP_MILLIS = 6_000;

  /** How much later than due (its deadline, or the recovery if later) a timeout may fire. */
  static final long LATE_TOLERANCE_MILLIS = 2_000;

  FullRestartMatrixTest() {
    super(3, REMOVED);
  }

  /**
   * Kills every ConfigNode, restarts them all, waits for a running leader, then lifts the faults.
   */
  private void crashAndRestartAll() throws Exception {
    cluster.killAllNodes();
    cluster.restartAllNodes();
    Drills.resetFaults(cluster);
  }

  @Test
  @Order(1)
  void migrateRegionCompletesAfterAFullRestartAtEachState() throws Exception {
    long sleep = -1;
    long deadline = 0;
    for (String state : List.of("ADD_PEER", "CATCH_UP", "SWITCH_LEADER", "REMOVE_FROM_SOURCE")) {
      Move m = Move.ofLeader(cluster, List.of(1, 2, 3));
      DataNodeClient held =
          cluster.dataNode(state.equals("REMOVE_FROM_SOURCE") ? m.from() : m.to());
      held.stallStep(state.equals("SWITCH_LEADER") ? "SWITCH_LEADER@target" : state);
      long id = cluster.procedures().submit("MigrateRegion", m.args());
      if (sleep < 0) {
        sleep =
            cluster.procedures().submit("Sleep", ClusterProcedures.args("millis", SLEEP_MILLIS));
        JsonNode w =
            cluster
                .procedures()
                .await(
                    sleep,
                    p -> "WAITING_TIMEOUT".equals(p.get("state").asText()),
                    Drills.REACH,
                    "waiting");
        deadline = w.get("lastUpdate").asLong() + SLEEP_MILLIS;
      }
      Drills.awaitHeldAt(cluster, id, state, held);

      crashAndRestartAll();
      if (state.equals("ADD_PEER")) {
        assertSleepKeptItsDeadline(sleep, deadline);
      }

      JsonNode done = Drills.awaitFinished(cluster, id);
      assertEquals("SUCCESS", done.get("state").asText(), () -> state + ": " + done);
      List<Integer> replicas = Drills.replicas(Drills.region(cluster, m.regionId()));
      assertTrue(replicas.contains(m.to()) && !replicas.contains(m.from()), replicas::toString);
    }
    Drills.assertInvariants(cluster);
  }

  /**
   * The Sleep fires at its deadline, or, if the cluster was down then, as soon as the new leader
   * runs: never a whole wait after the recovery (a wait restarted from scratch).
   */
  private void assertSleepKeptItsDeadline(long sleep, long deadline) throws Exception {
    long running =
        cluster.cluster(cluster.leader()).get("executor").get("lastRecoveryRunningAt").asLong();
    JsonNode slept = Drills.awaitFinished(cluster, sleep);
    assertEquals("SUCCESS", slept.get("state").asText());
    long due = Math.max(deadline, running);
    long late = slept.get("lastUpdate").asLong() - due;
    assertTrue(
        slept.get("lastUpdate").asLong() >= deadline - Drills.STAMP_SKEW_MILLIS
            && late <= LATE_TOLERANCE_MILLIS,
        () ->
            "the Sleep fired "
                + (slept.get("lastUpdate").asLong() - deadline)
                + " ms after its deadline, the executor ran again "
                + (running - deadline)
                + " ms after it");
  }

  @Test
  @Order(2)
  void rollbackCompletesAfterAFullRestart() throws Exception {
    Move m = Move.ofLeader(cluster, List.of(1, 2, 3));
    List<Integer> before = Drills.replicas(Drills.region(cluster, m.regionId()));
    long id = Drills.submitMoveStuckInRollback(cluster, m);

    crashAndRestartAll();

    Drills.assertRolledBack(cluster, id, m, before);
  }

  @Test
  @Order(3)
  void removeDataNodeCompletesAfterFullRestartsInItsChildren() throws Exception {
    DataNodeClient removed = cluster.dataNode(REMOVED);
    for (int dn = 1; dn < REMOVED; dn++) {
      cluster.dataNode(dn).stallStep("ADD_PEER");
    }
    long remove =
        cluster
            .procedures()
            .submit("RemoveDataNode", ClusterProcedures.args("dataNodeId", REMOVED));
    Drills.awaitChildHeldAt(cluster, remove, "ADD_PEER");
    removed.stallStep("REMOVE_FROM_SOURCE"); // not yet reached: held at the next crash point
    cluster.killAllNodes();
    cluster.restartAllNodes();
    for (int dn = 1; dn < REMOVED; dn++) {
      cluster.dataNode(dn).resetFaults();
    }

    Drills.awaitChildHeldAt(cluster, remove, "REMOVE_FROM_SOURCE");
    crashAndRestartAll();

    JsonNode done = Drills.awaitFinished(cluster, remove);
    assertEquals("SUCCESS", done.get("state").asText(), done::toString);
    assertTrue(removed.state().regions().isEmpty(), "the removed DataNode still hosts regions");
    Drills.assertInvariants(cluster);
  }
}
