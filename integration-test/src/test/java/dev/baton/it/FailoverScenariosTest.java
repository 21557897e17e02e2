package dev.baton.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.datanode.DataNodeClient;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Failovers at awkward moments, on one 3-ConfigNode, 3-DataNode process cluster: while a procedure
 * waits on a timeout (the timeout fires at its original deadline), during a rollback (the new
 * leader carries it on), and of a new leader still rebuilding its executor (LEADER_RECOVERING); and
 * of a DataNode (SIGKILL and restart) in the middle of a step.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class FailoverScenariosTest extends SharedClusterTest {
  /** How long the Sleep procedure waits; well above a failover. */
  static final long SLEEP_MILLIS = 8_000;

  /** How far into its wait the leader dies: a restarted wait would end this much late. */
  static final long KILL_AFTER_MILLIS = 2_500;

  /** How much later than its deadline a timeout may fire (timer granularity, a loaded machine). */
  static final long DEADLINE_TOLERANCE_MILLIS = 1_500;

  /** Live procedures during the recovery kill: they make recovery take a little while. */
  static final int LIVE_DURING_RECOVERY = 150;

  static final long LIVE_SLEEP_MILLIS = 15_000;

  /** Tries at catching a new leader in LEADER_RECOVERING (each try is one failover). */
  static final int RECOVERY_KILL_TRIES = 4;

  FailoverScenariosTest() {
    super(3, 3);
  }

  @Test
  @Order(1)
  void timeoutFiresAtItsOriginalDeadlineAfterLeaderKill() throws Exception {
    long id = cluster.procedures().submit("Sleep", ClusterProcedures.args("millis", SLEEP_MILLIS));
    JsonNode waiting =
        cluster
            .procedures()
            .await(
                id,
                p -> "WAITING_TIMEOUT".equals(p.get("state").asText()),
                Drills.REACH,
                "waiting on its timeout");
    long deadline = waiting.get("lastUpdate").asLong() + SLEEP_MILLIS;
    long killAt = waiting.get("lastUpdate").asLong() + KILL_AFTER_MILLIS;
    await("the wait has run a while")
        .atMost(Duration.ofMillis(KILL_AFTER_MILLIS * 2))
        .until(() -> System.currentTimeMillis() >= killAt);

    Drills.Failover f = Drills.killLeader(cluster);
    long running =
        cluster.cluster(f.newLeader()).get("executor").get("lastRecoveryRunningAt").asLong();
    assertTrue(running < deadline, "the failover must end before the deadline to test it");
    Drills.restartAndAwaitFollower(cluster, f.oldLeader());

    JsonNode done = Drills.awaitFinished(cluster, id);
    assertEquals("SUCCESS", done.get("state").asText(), done::toString);
    long firedAt = done.get("lastUpdate").asLong();
    assertTrue(
        firedAt >= deadline - Drills.STAMP_SKEW_MILLIS
            && firedAt <= deadline + DEADLINE_TOLERANCE_MILLIS,
        () ->
            "the timeout fired "
                + (firedAt - deadline)
                + " ms after its original deadline; restarted at recovery it would be "
                + (running + SLEEP_MILLIS - deadline)
                + " ms late");
  }

  @Test
  @Order(2)
  void rollbackCarriesOnAfterLeaderKill() throws Exception {
    Move m = Move.ofLeader(cluster, cluster.dataNodeIds());
    List<Integer> before = Drills.replicas(Drills.region(cluster, m.regionId()));
    DataNodeClient target = cluster.dataNode(m.to());
    long id = Drills.submitMoveStuckInRollback(cluster, m);

    Drills.Failover f = Drills.killLeader(cluster);
    long failures = target.state().faults().injectedFailures();
    await("the new leader " + f.newLeader() + " retries the rollback")
        .atMost(Drills.REACH)
        .pollInterval(Drills.POLL)
        .until(() -> target.state().faults().injectedFailures() > failures);
    assertFalse(cluster.procedures().get(id).get("finished").asBoolean());
    target.resetFaults();
    Drills.restartAndAwaitFollower(cluster, f.oldLeader());

    Drills.assertRolledBack(cluster, id, m, before);
  }

  @Test
  @Order(3)
  void killOfANewLeaderStillRecoveringLosesNothing() throws Exception {
    List<Long> live = new ArrayList<>();
    for (int i = 0; i < LIVE_DURING_RECOVERY; i++) {
      live.add(
          cluster
              .procedures()
              .submit("Sleep", ClusterProcedures.args("millis", LIVE_SLEEP_MILLIS)));
    }
    Move m = Move.ofLeader(cluster, cluster.dataNodeIds());
    long migration = cluster.procedures().submit("MigrateRegion", m.args());

    boolean caught = false;
    List<String> tries = new ArrayList<>();
    for (int attempt = 0; attempt < RECOVERY_KILL_TRIES && !caught; attempt++) {
      String leader = cluster.leader();
      long term = cluster.term(leader);
      cluster.kill(leader);
      JsonNode seen = awaitRecoveringLeader(Set.of(leader), term);
      String recovering = seen.get("nodeId").asText();
      long newTerm = seen.get("term").asLong();
      cluster.kill(recovering);
      caught = killedBeforeRunning(recovering, newTerm);
      tries.add(leader + "@" + term + " killed, then " + seen + " killed, caught " + caught);
      cluster.restart(leader);
      cluster.restart(recovering);
      String next = cluster.awaitLeader(Set.of(), newTerm);
      for (String id : cluster.nodeIds()) {
        if (!id.equals(next)) {
          await("node " + id + " follows")
              .atMost(ProcessCluster.CLUSTER_WAIT)
              .pollInterval(Drills.POLL)
              .ignoreExceptions()
              .until(() -> cluster.cluster(id).path("leaderId").isTextual());
        }
      }
    }
    assertTrue(caught, () -> "no try killed a leader in LEADER_RECOVERING: " + tries);

    assertEquals("SUCCESS", Drills.awaitFinished(cluster, migration).get("state").asText());
    for (long id : live) {
      assertEquals("SUCCESS", Drills.awaitFinished(cluster, id).get("state").asText());
    }
    List<Integer> replicas = Drills.replicas(Drills.region(cluster, m.regionId()));
    assertTrue(replicas.contains(m.to()) && !replicas.contains(m.from()), replicas::toString);
    Drills.assertInvariants(cluster);
  }

  /** Polls the serving nodes as fast as they answer for one in LEADER_RECOVERING. */
  private JsonNode awaitRecoveringLeader(Set<String> exclude, long afterTerm) throws Exception {
    return await("a leader in LEADER_RECOVERING")
        .atMost(ProcessCluster.CLUSTER_WAIT)
        .pollInterval(Duration.ofMillis(1))
        .ignoreExceptions()
        .until(
            () -> {
              for (String id : cluster.servingNodes()) {
                JsonNode c = cluster.cluster(id);
                if (!exclude.contains(id)
                    && "LEADER_RECOVERING".equals(c.path("role").asText())
                    && c.path("term").asLong() > afterTerm) {
                  return c;
                }
              }
              return null;
            },
            java.util.Objects::nonNull);
  }

  /**
   * A DataNode SIGKILLed while it holds a step's command: the step fails, the undo of the step
   * before cannot reach the DataNode and is retried until the DataNode is back (restarted on its
   * data dir with what it had applied), then the move ends ROLLEDBACK and everything agrees.
   */
  @Test
  @Order(4)
  void aKilledDataNodeComesBackWithItsStateAndTheMoveRollsBack() throws Exception {
    Move m = Move.ofLeader(cluster, cluster.dataNodeIds());
    List<Integer> before = Drills.replicas(Drills.region(cluster, m.regionId()));
    DataNodeClient target = cluster.dataNode(m.to());
    target.stallStep("CATCH_UP");
    long id = cluster.procedures().submit("MigrateRegion", m.args());
    Drills.awaitHeldAt(cluster, id, "CATCH_UP", target);
    assertTrue(target.state().region(m.regionId()).isPresent(), "ADD_PEER was applied");

    cluster.killDataNode(m.to());
    assertFalse(cluster.isDataNodeRunning(m.to()));
    await("the move fails while DataNode " + m.to() + " is down")
        .atMost(Drills.REACH)
        .pollInterval(Drills.POLL)
        .ignoreExceptions()
        .until(() -> cluster.procedures().get(id).hasNonNull("failure"));
    assertFalse(cluster.procedures().get(id).get("finished").asBoolean(), "the undo is pending");
    cluster.restartDataNode(m.to());

    Drills.assertRolledBack(cluster, id, m, before);
    assertTrue(
        target.state().ledger().stream()
            .anyMatch(e -> e.procId() == id && e.step().equals("ADD_PEER")),
        "the restarted DataNode kept the ADD_PEER it had applied");
  }

  /**
   * Whether the node's log shows it never ran the executor of {@code term}: it died elected but not
   * yet ready, or while rebuilding.
   */
  private boolean killedBeforeRunning(String nodeId, long term) throws Exception {
    return !Files.readString(cluster.log(nodeId)).contains("runs the executor of term " + term);
  }
}
