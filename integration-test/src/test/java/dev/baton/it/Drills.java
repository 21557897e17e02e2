package dev.baton.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cluster.InvariantCheck;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.datanode.DataNodeClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Steps the failover drills share: kill the leader, wait for the next one, check invariants. */
final class Drills {
  /** How long a procedure may take to finish after the faults are gone (retry backoff included). */
  /**
   * How much earlier than a deadline inferred from a record's {@code lastUpdate} a timeout may
   * fire: a step sets its wait deadline just before its record is stamped, so the inferred one is a
   * little late.
   */
  static final long STAMP_SKEW_MILLIS = 100;

  static final Duration FINISH = Duration.ofSeconds(90);

  /** How long a procedure may take to reach a named state. */
  static final Duration REACH = Duration.ofSeconds(60);

  static final Duration POLL = Duration.ofMillis(50);

  private Drills() {}

  /** The result of one leader kill. */
  record Failover(String oldLeader, long oldTerm, String newLeader, long newTerm) {}

  /** SIGKILL the leader and wait for another node to run as leader in a higher term. */
  static Failover killLeader(ProcessCluster cluster) throws Exception {
    String leader = cluster.leader();
    long term = cluster.term(leader);
    cluster.kill(leader);
    String next = cluster.awaitLeader(Set.of(leader), term);
    return new Failover(leader, term, next, cluster.term(next));
  }

  /** Restarts a killed node and waits until it follows in the current term. */
  static void restartAndAwaitFollower(ProcessCluster cluster, String nodeId) throws Exception {
    cluster.restart(nodeId);
    await("node " + nodeId + " back as a follower")
        .atMost(ProcessCluster.CLUSTER_WAIT)
        .pollInterval(POLL)
        .ignoreExceptions()
        .until(() -> cluster.cluster(nodeId).path("leaderId").isTextual());
  }

  /** Waits until the procedure shows {@code step} and a command is held by {@code dn}'s stall. */
  static JsonNode awaitHeldAt(ProcessCluster cluster, long procId, String step, DataNodeClient dn)
      throws Exception {
    await("procedure " + procId + " held at " + step)
        .atMost(REACH)
        .pollInterval(POLL)
        .ignoreExceptions()
        .until(
            () ->
                step.equals(cluster.procedures().get(procId).path("step").asText())
                    && dn.state().faults().waiting() > 0);
    return cluster.procedures().get(procId);
  }

  static JsonNode awaitFinished(ProcessCluster cluster, long procId) throws Exception {
    return cluster.procedures().awaitFinished(procId, FINISH);
  }

  static void resetFaults(ProcessCluster cluster) throws Exception {
    for (int id : cluster.dataNodeIds()) {
      cluster.dataNode(id).resetFaults();
    }
  }

  static List<DataNodeClient> dataNodes(ProcessCluster cluster) {
    List<DataNodeClient> out = new ArrayList<>();
    for (int id : cluster.dataNodeIds()) {
      out.add(cluster.dataNode(id));
    }
    return out;
  }

  /** Every invariant of the drill, checked from the DataNodes' ledgers and the final states. */
  static void assertInvariants(ProcessCluster cluster) throws Exception {
    cluster.procedures().awaitAllFinished(FINISH);
    InvariantCheck.Result r =
        InvariantCheck.check(
            cluster.api(), dataNodes(cluster), cluster.procedures().acknowledged(), true);
    assertTrue(r.ok(), r::describe);
  }

  /** The region's JSON view in the metadata. */
  static JsonNode region(ProcessCluster cluster, int regionId) throws Exception {
    for (JsonNode r : cluster.api().get("/api/metadata").get("regions")) {
      if (r.get("id").asInt() == regionId) {
        return r;
      }
    }
    throw new AssertionError("no region " + regionId + " in the metadata");
  }

  static List<Integer> replicas(JsonNode region) {
    List<Integer> out = new ArrayList<>();
    region.get("replicas").forEach(x -> out.add(x.asInt()));
    return out;
  }

  /**
   * A child of {@code parent} at {@code step} while some DataNode holds a stalled command, or null.
   */
  static Long childHeldAt(ProcessCluster cluster, long parent, String step) throws Exception {
    boolean stalled = false;
    for (DataNodeClient dn : dataNodes(cluster)) {
      stalled |= dn.state().faults().waiting() > 0;
    }
    if (!stalled) {
      return null;
    }
    for (JsonNode p : cluster.api().get("/api/procedures?type=MigrateRegion")) {
      if (p.get("parentProcId").asLong() == parent && step.equals(p.path("step").asText())) {
        return p.get("procId").asLong();
      }
    }
    return null;
  }

  /** Waits for a child of {@code parent} at {@code step} with a command held by a stall. */
  static void awaitChildHeldAt(ProcessCluster cluster, long parent, String step) {
    await("a child of " + parent + " held at " + step)
        .atMost(REACH)
        .pollInterval(POLL)
        .ignoreExceptions()
        .until(() -> childHeldAt(cluster, parent, step) != null);
  }

  /**
   * The children of a finished root stay queryable with their final records while the root is
   * retained: each child (there is one at least) answers {@code GET /api/procedures/{id}} as a
   * finished success that ran to its last state.
   */
  static void assertChildrenKept(ProcessCluster cluster, long root) throws Exception {
    List<Long> children = new ArrayList<>();
    for (JsonNode p : cluster.api().get("/api/procedures?type=MigrateRegion")) {
      if (p.get("parentProcId").asLong() == root) {
        children.add(p.get("procId").asLong());
      }
    }
    assertTrue(!children.isEmpty(), "the children of " + root + " are gone");
    for (long child : children) {
      JsonNode c = cluster.procedures().get(child);
      assertEquals("SUCCESS", c.get("state").asText(), c::toString);
      assertEquals("UPDATE_METADATA", c.get("step").asText(), c::toString);
      assertTrue(c.get("finished").asBoolean(), c::toString);
    }
  }

  /**
   * Submits the move with every command to its target failing, so its first DataNode step fails and
   * the undo of that step fails again and again; returns once the rollback is under way.
   */
  static long submitMoveStuckInRollback(ProcessCluster cluster, Move m) throws Exception {
    DataNodeClient target = cluster.dataNode(m.to());
    target.failNext(Integer.MAX_VALUE);
    long id = cluster.procedures().submit("MigrateRegion", m.args());
    await("rollback of " + id + " under way")
        .atMost(REACH)
        .pollInterval(POLL)
        .ignoreExceptions()
        .until(
            () ->
                target.state().faults().injectedFailures() >= 3
                    && cluster.procedures().get(id).hasNonNull("failure")
                    && !cluster.procedures().get(id).get("finished").asBoolean());
    return id;
  }

  /** The move rolled back: placement as {@code before}, nothing left on the target. */
  static void assertRolledBack(ProcessCluster cluster, long id, Move m, List<Integer> before)
      throws Exception {
    JsonNode done = awaitFinished(cluster, id);
    assertEquals("ROLLEDBACK", done.get("state").asText(), done::toString);
    assertEquals(before, replicas(region(cluster, m.regionId())));
    assertTrue(
        cluster.dataNode(m.to()).state().region(m.regionId()).isEmpty(),
        "the added peer is undone");
    assertInvariants(cluster);
  }
}
