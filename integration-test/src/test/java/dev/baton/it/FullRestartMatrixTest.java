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
 * crash), on one 3-ConfigNode, 4-DataNode process cluster: at each state of MigrateRegion (with a
 * timed Sleep in flight, whose deadline must survive), during a rollback, and at each state of
 * RemoveDataNode and in its child migrations. A state that sends a DataNode command is held by a
 * stall of that command, one that does not by a ConfigNode fault hold (set again on the restarted
 * nodes through {@code --hold}). Each completes or rolls back as designed for its state.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class FullRestartMatrixTest extends SharedClusterTest {
  static final int REMOVED = 4;

  /** The Sleep in flight during the first full restart. */
  static final long SLEEP_MILLIS = 6_000;

  /** How much later than due (its deadline, or the recovery if later) a timeout may fire. */
  static final long LATE_TOLERANCE_MILLIS = 2_000;

  FullRestartMatrixTest() {
    super(3, REMOVED, Holds.FAULTS);
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
    for (String state : MigrateKillPoints.STATES) {
      Move m = Move.ofLeader(cluster, List.of(1, 2, 3));
      boolean first = sleep < 0;
      if (first) {
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
      long id = MigrateKillPoints.submitHeldAt(cluster, m, state).procId();

      crashAndRestartAll();
      if (first) {
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

  /** Kills every ConfigNode and restarts them all, each holding at {@code next} (if given). */
  private void crashAndRestartHolding(Holds.Hold... next) throws Exception {
    cluster.killAllNodes();
    cluster.restartAllNodes(next.length == 0 ? List.of() : Holds.atStart(next[0]));
  }

  @Test
  @Order(3)
  void removeDataNodeCompletesAfterFullRestartsAtEachStateAndInItsChildren() throws Exception {
    Holds.Hold validate = new Holds.Hold("RemoveDataNode", "VALIDATE");
    Holds.Hold markRemoving = new Holds.Hold("RemoveDataNode", "MARK_REMOVING");
    Holds.Hold migrate = new Holds.Hold("RemoveDataNode", "MIGRATE");
    Holds.Hold remove = new Holds.Hold("RemoveDataNode", "REMOVE");
    Holds.Hold childUpdate = new Holds.Hold("MigrateRegion", "UPDATE_METADATA");
    DataNodeClient removed = cluster.dataNode(REMOVED);
    for (int dn = 1; dn < REMOVED; dn++) {
      cluster.dataNode(dn).stallStep("ADD_PEER");
    }
    Holds.armAll(cluster, validate);
    long id =
        cluster
            .procedures()
            .submit("RemoveDataNode", ClusterProcedures.args("dataNodeId", REMOVED));
    // its own states before the children (metadata only): fault holds, set again at each start
    Holds.awaitHeld(cluster, validate, id);
    crashAndRestartHolding(markRemoving);
    Holds.awaitHeld(cluster, markRemoving, id);
    crashAndRestartHolding(migrate);
    Holds.awaitHeld(cluster, migrate, id);
    crashAndRestartHolding();

    // its children, held by DataNode stalls
    Drills.awaitChildHeldAt(cluster, id, "ADD_PEER");
    removed.stallStep("REMOVE_FROM_SOURCE"); // not yet reached: held at the next crash point
    crashAndRestartHolding();
    for (int dn = 1; dn < REMOVED; dn++) {
      cluster.dataNode(dn).resetFaults();
    }
    Drills.awaitChildHeldAt(cluster, id, "REMOVE_FROM_SOURCE");
    crashAndRestartHolding(childUpdate);
    removed.resetFaults();

    // a child recording the new placement, then the parent removing the node
    Holds.awaitHeld(cluster, childUpdate, 0);
    crashAndRestartHolding(remove);
    Holds.awaitHeld(cluster, remove, id);
    crashAndRestartHolding();

    JsonNode done = Drills.awaitFinished(cluster, id);
    assertEquals("SUCCESS", done.get("state").asText(), done::toString);
    assertTrue(removed.state().regions().isEmpty(), "the removed DataNode still hosts regions");
    Drills.assertChildrenKept(cluster, id);
    Drills.assertInvariants(cluster);
  }
}
