package dev.baton.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.datanode.DataNodeState;
import dev.baton.confignode.datanode.LedgerEntry;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * On a 5-ConfigNode, 3-DataNode process cluster: a leader frozen (SIGSTOP) in the middle of a step
 * for longer than the election timeout, while a new leader finishes the procedure, then thawed
 * (SIGCONT): it steps down, and no DataNode accepted a command of its old term after one of the new
 * term; a follower that missed many entries (purged from the leader's log behind a snapshot)
 * catches up after its restart.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class PausedLeaderTest extends SharedClusterTest {
  static final int NODES = 5;

  /** Procedures committed while a follower is down; it must catch up on all of them. */
  static final int MISSED = 200;

  /** Small snapshots and log segments, so the leader purges what a follower missed. */
  static final String SNAPSHOT_EVERY = "100";

  static final String SEGMENT_BYTES = "32768";

  static final String APPLIED_INDEX = "baton_raft_applied_index";

  PausedLeaderTest() {
    super(
        NODES,
        3,
        List.of("--snapshot-every", SNAPSHOT_EVERY, "--log-segment-bytes", SEGMENT_BYTES));
  }

  @Test
  @Order(1)
  void pausedLeaderStepsDownAndItsOldTermIsFencedOff() throws Exception {
    Move m = Move.ofLeader(cluster, cluster.dataNodeIds());
    DataNodeClient target = cluster.dataNode(m.to());
    target.stallStep("SWITCH_LEADER@target"); // held between the two commands of SWITCH_LEADER
    long id = cluster.procedures().submit("MigrateRegion", m.args());
    Drills.awaitHeldAt(cluster, id, "SWITCH_LEADER", target);

    String old = cluster.leader();
    long oldTerm = cluster.term(old);
    cluster.pause(old);
    String next = cluster.awaitLeader(Set.of(old), oldTerm);
    long newTerm = cluster.term(next);
    target.resetFaults(); // both leaders' SWITCH_LEADER@target go on, in either order
    JsonNode done = Drills.awaitFinished(cluster, id);
    assertEquals("SUCCESS", done.get("state").asText(), done::toString);
    assertTrue(cluster.isPaused(old), "the old leader slept through the new leader's steps");

    cluster.resume(old);
    NodeApiClient oldApi = cluster.client(cluster.http(old));
    await("the thawed " + old + " steps down")
        .atMost(ProcessCluster.CLUSTER_WAIT)
        .pollInterval(Drills.POLL)
        .ignoreExceptions()
        .until(
            () -> {
              JsonNode c = oldApi.cluster(cluster.http(old));
              return "FOLLOWER".equals(c.get("role").asText()) && c.get("term").asLong() >= newTerm;
            });
    List<Integer> replicas = Drills.replicas(Drills.region(cluster, m.regionId()));
    assertTrue(replicas.contains(m.to()) && !replicas.contains(m.from()), replicas::toString);
    assertNoOldTermAfterNew(oldTerm, newTerm);
    Drills.assertInvariants(cluster);
  }

  /**
   * On every DataNode: no command of {@code oldTerm} (or older) after the first of {@code newTerm}.
   */
  private void assertNoOldTermAfterNew(long oldTerm, long newTerm) throws Exception {
    List<String> late = new ArrayList<>();
    for (DataNodeClient dn : Drills.dataNodes(cluster)) {
      DataNodeState s = dn.state();
      boolean newSeen = false;
      for (LedgerEntry e : s.ledger()) {
        newSeen |= e.term() >= newTerm;
        if (newSeen && e.term() <= oldTerm) {
          late.add("DataNode " + s.id() + ": " + e);
        }
      }
    }
    assertTrue(late.isEmpty(), () -> "old-term commands accepted after the new term: " + late);
  }

  @Test
  @Order(2)
  void followerThatMissedManyEntriesCatchesUpAfterRestart() throws Exception {
    String leader = cluster.leader();
    String follower =
        cluster.nodeIds().stream().filter(n -> !n.equals(leader)).findFirst().orElseThrow();
    cluster.kill(follower);
    long last = -1;
    for (int i = 0; i < MISSED; i++) {
      last = cluster.procedures().submit("Noop", null);
    }
    Drills.awaitFinished(cluster, last);

    long leaderIndex = metric(cluster.leader(), APPLIED_INDEX);
    cluster.restart(follower);
    NodeApiClient own = cluster.client(cluster.http(follower));
    long lastId = last;
    JsonNode seen =
        await(follower + " answers for the last procedure it missed")
            .atMost(ProcessCluster.CLUSTER_WAIT)
            .pollInterval(Drills.POLL)
            .ignoreExceptions()
            .until(() -> own.get("/api/procedures/" + lastId), p -> p.get("finished").asBoolean());
    assertEquals("SUCCESS", seen.get("state").asText(), seen::toString);
    JsonNode c = own.cluster(cluster.http(follower));
    assertEquals("FOLLOWER", c.get("role").asText(), c::toString);
    // a read may be answered by the leader; the follower's own state machine must hold it all
    await(follower + " applied up to where the leader was")
        .atMost(ProcessCluster.CLUSTER_WAIT)
        .pollInterval(Drills.POLL)
        .ignoreExceptions()
        .until(() -> metric(follower, APPLIED_INDEX) >= leaderIndex);
    assertTrue(
        Files.readString(cluster.log(follower)).contains("snapshot installed from the leader"),
        "the leader purged what " + follower + " missed: it must catch up from a snapshot");
    Drills.assertInvariants(cluster);
  }

  /** One value of the node's {@code GET /metrics}. */
  private long metric(String nodeId, String name) throws Exception {
    Double value = cluster.client(cluster.http(nodeId)).metrics(cluster.http(nodeId)).get(name);
    if (value == null) {
      throw new AssertionError("no " + name + " in the metrics of " + nodeId);
    }
    return value.longValue();
  }
}
