package dev.baton.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.cluster.InvariantCheck;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ConfigNode membership online, on real processes (one secured 3-ConfigNode, 3-DataNode cluster,
 * mutual TLS in Raft): grow 3 → 5 and shrink back under a small workload with the drill's
 * invariants holding; refuse a removal that leaves no live majority and a second change while one
 * runs; remove the leader; replace a member whose data directory was wiped under a new id.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class ConfigNodeMembershipTest extends SharedClusterTest {
  private static final Holds.Hold ADD_HELD = new Holds.Hold("AddConfigNode", "ADD_TO_GROUP");

  /** The nonce group of the membership changes this test submits. */
  private static final long CHANGE_NONCE_GROUP = 24;

  /**
   * The first nonce of the membership changes: far above the workload's, so that the two count as
   * different acknowledged submissions in the invariant check.
   */
  private static final long CHANGE_NONCES = 1_000_000_000L;

  /** The membership changes submitted; made once the cluster runs. */
  private MembershipChanges changes;

  /** Steps of each workload Noop: short, so many run during a change. */
  private static final int WORKLOAD_STEPS = 3;

  ConfigNodeMembershipTest() {
    super(3, 3, Holds.FAULTS);
  }

  private synchronized MembershipChanges changes() {
    if (changes == null) {
      changes = new MembershipChanges(cluster, CHANGE_NONCE_GROUP, CHANGE_NONCES);
    }
    return changes;
  }

  @Test
  @Order(1)
  void growsFromThreeToFiveAndShrinksBackUnderLoad() throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger submitted = new AtomicInteger();
    Thread workload = workload(stop, submitted);
    try {
      for (String id : List.of("cn4", "cn5")) {
        String address = cluster.startJoiningNode(id);
        cluster.awaitAnswering(id);
        assertSucceeded(change("add", "id", id, "address", address));
      }
      assertEquals(Set.of("cn1", "cn2", "cn3", "cn4", "cn5"), members());
      awaitCaughtUp("cn5");
      for (String id : List.of("cn4", "cn5")) {
        assertSucceeded(change("remove", "id", id));
        awaitStoppedByItself(id);
      }
      assertEquals(Set.of("cn1", "cn2", "cn3"), members());
    } finally {
      stop.set(true);
      workload.join();
    }
    assertTrue(submitted.get() > 0, "the workload ran during the changes");
    assertInvariants();
    JsonNode recorded = cluster.api().get("/api/metadata").path("configNodes");
    assertEquals(2, recorded.size(), recorded::toString);
    for (JsonNode c : recorded) {
      assertEquals("REMOVED", c.path("status").asText(), recorded::toString);
    }
  }

  @Test
  @Order(2)
  void refusesARemovalThatLeavesNoLiveMajority() throws Exception {
    String leader = cluster.leader();
    List<String> followers = followers(leader);
    cluster.kill(followers.get(0));
    await("the leader counts " + followers.get(0) + " as down")
        .atMost(Drills.REACH)
        .pollInterval(Drills.POLL)
        .ignoreExceptions()
        .until(() -> !memberView(leader, followers.get(0)).path("live").asBoolean(true));

    JsonNode refused = Drills.awaitFinished(cluster, change("remove", "id", followers.get(1)));
    assertRefused(refused, "majority needs 2");
    assertEquals(Set.of("cn1", "cn2", "cn3"), members());

    Drills.restartAndAwaitFollower(cluster, followers.get(0));
  }

  @Test
  @Order(3)
  void refusesASecondChangeWhileOneRuns() throws Exception {
    String address = cluster.startJoiningNode("cn6");
    cluster.awaitAnswering("cn6");
    Holds.armAll(cluster, ADD_HELD);
    long add;
    try {
      add = change("add", "id", "cn6", "address", address);
      Holds.awaitHeld(cluster, ADD_HELD, add);

      long second = change("remove", "id", followers(cluster.leader()).get(0));
      assertRefused(
          Drills.awaitFinished(cluster, second),
          "lock node:confignode-membership (EXCLUSIVE) held by procedure " + add);
    } finally {
      Holds.armAll(cluster);
    }
    assertSucceeded(add);
    assertEquals(Set.of("cn1", "cn2", "cn3", "cn6"), members());
  }

  @Test
  @Order(4)
  void removesTheLeader() throws Exception {
    String leader = cluster.leader();
    long term = cluster.term(leader);
    assertSucceeded(change("remove", "id", leader));
    awaitStoppedByItself(leader);
    String next = cluster.awaitLeader(Set.of(leader), term);
    assertFalse(next.equals(leader));
    assertFalse(members().contains(leader), "members " + members());
    assertTrue(
        Files.readString(cluster.log(leader)).contains("no longer a member"),
        "the removed leader says why it stops");
  }

  @Test
  @Order(5)
  void replacesAMemberWhoseDiskWasWipedUnderANewId() throws Exception {
    String dead = followers(cluster.leader()).get(0);
    cluster.kill(dead);
    cluster.wipeDataDir(dead);
    String address = cluster.startJoiningNode("cn7");
    cluster.awaitAnswering("cn7");
    long replace = change("replace", "oldId", dead, "newId", "cn7", "address", address);
    assertSucceeded(replace);
    assertTrue(members().contains("cn7") && !members().contains(dead), "members " + members());
    awaitCaughtUp("cn7");

    // the old id never votes again: adding it back is refused, whatever its address
    long back = change("add", "id", dead, "address", cluster.raftAddress(dead));
    assertRefused(Drills.awaitFinished(cluster, back), "never added again");
    assertInvariants();
  }

  private long change(String action, Object... args) throws Exception {
    return changes().submit(action, args);
  }

  /** The drill's invariants, the membership changes counted with the workload's submissions. */
  private void assertInvariants() throws Exception {
    cluster.procedures().awaitAllFinished(Drills.FINISH);
    Map<Long, Long> acknowledged = new HashMap<>(cluster.procedures().acknowledged());
    acknowledged.putAll(changes().submitted());
    InvariantCheck.Result r =
        InvariantCheck.check(cluster.api(), Drills.dataNodes(cluster), acknowledged, true);
    assertTrue(r.ok(), r::describe);
  }

  /** A change refused before it changed anything: rolled back, its failure saying {@code why}. */
  private static void assertRefused(JsonNode done, String why) {
    assertEquals("ROLLEDBACK", done.path("state").asText(), done::toString);
    assertTrue(done.path("failure").asText().contains(why), done::toString);
  }

  private void assertSucceeded(long procId) throws Exception {
    JsonNode done = Drills.awaitFinished(cluster, procId);
    assertEquals("SUCCESS", done.path("state").asText(), done::toString);
  }

  private Set<String> members() throws Exception {
    return MembershipChanges.members(cluster);
  }

  private JsonNode memberView(String viewer, String id) throws Exception {
    for (JsonNode m : cluster.cluster(viewer).path("members")) {
      if (m.path("id").asText().equals(id)) {
        return m;
      }
    }
    throw new AssertionError("no member " + id + " in " + viewer + "'s view");
  }

  private List<String> followers(String leader) throws Exception {
    List<String> out = new ArrayList<>(members());
    out.remove(leader);
    return out;
  }

  /** Waits until {@code id} answers and has applied as far as the leader had when asked. */
  private void awaitCaughtUp(String id) throws Exception {
    cluster.awaitAnswering(id);
    long target = cluster.cluster(cluster.leader()).path("appliedIndex").asLong();
    cluster.awaitApplied(id, target, Drills.FINISH);
  }

  /** Waits until the removed node's process has exited by itself, saying why. */
  private void awaitStoppedByItself(String id) throws Exception {
    await(id + " stopped by itself")
        .atMost(Drills.FINISH)
        .pollInterval(Drills.POLL)
        .until(() -> cluster.hasExited(id));
    assertTrue(Files.readString(cluster.log(id)).contains("node " + id + " stops:"), id);
  }

  /** Submits short Noops until {@code stop}, one after another, counting them. */
  private Thread workload(AtomicBoolean stop, AtomicInteger submitted) {
    Thread t =
        new Thread(
            () -> {
              while (!stop.get()) {
                try {
                  cluster
                      .procedures()
                      .submit("Noop", ClusterProcedures.args("steps", WORKLOAD_STEPS));
                  submitted.incrementAndGet();
                } catch (InterruptedException e) {
                  return;
                } catch (Exception e) {
                  throw new IllegalStateException("workload submission failed", e);
                }
              }
            },
            "membership-workload");
    t.start();
    return t;
  }
}
