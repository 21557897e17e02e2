package dev.baton.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cluster.InvariantCheck;
import dev.baton.confignode.cluster.ProcessCluster;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The kill-point matrix of the ConfigNode membership procedures, on one 3-ConfigNode, 1-DataNode
 * process cluster started with fault holds ({@link Holds}): an {@code AddConfigNode} held before
 * each of its states ({@code VALIDATE}, {@code ADD_TO_GROUP}, {@code RECORD}) and a {@code
 * RemoveConfigNode} held before each of its own ({@code VALIDATE}, {@code TRANSFER_LEADERSHIP} with
 * the leader itself removed, {@code REMOVE_FROM_GROUP}, {@code RECORD}); the leader is SIGKILLed
 * there, the node that leads next (armed with no hold) finishes the change, and the killed node is
 * restarted: it follows again, or, removed meanwhile, learns it and stops by itself. Additions and
 * removals alternate, so the group has 3 or 4 members; every change must succeed, the group's
 * members must be what the changes made, and every invariant of the drill must hold.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MembershipKillMatrixTest {
  private static final String ADD = "AddConfigNode";
  private static final String REMOVE = "RemoveConfigNode";

  /** The nonce group of the membership changes this test submits. */
  private static final long CHANGE_NONCE_GROUP = 2424;

  private ProcessCluster cluster;
  private MembershipChanges changes;

  /** The ids the next additions take. */
  private int nextId = 4;

  @BeforeAll
  void startCluster() throws Exception {
    cluster =
        ProcessCluster.start(3, 1, Boolean.getBoolean(SharedClusterTest.KEEP_DIR), Holds.FAULTS);
    changes = new MembershipChanges(cluster, CHANGE_NONCE_GROUP, 1);
  }

  @AfterAll
  void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void everyChangeFinishesUnderTheNextLeaderWhereverTheLeaderDies() throws Exception {
    addKilledAt("VALIDATE");
    removeKilledAt("TRANSFER_LEADERSHIP", cluster.leader());
    addKilledAt("ADD_TO_GROUP");
    removeKilledAt("REMOVE_FROM_GROUP", newestFollower());
    addKilledAt("RECORD");
    removeKilledAt("VALIDATE", newestFollower());
    String plain = addNode();
    assertSucceeded(change("add", "id", plain, "address", cluster.raftAddress(plain)));
    removeKilledAt("RECORD", newestFollower());

    assertEquals(3, members().size(), "members " + members());
    cluster.procedures().awaitAllFinished(Drills.FINISH);
    Map<Long, Long> acknowledged = new HashMap<>(cluster.procedures().acknowledged());
    acknowledged.putAll(changes.submitted());
    InvariantCheck.Result r =
        InvariantCheck.check(cluster.api(), Drills.dataNodes(cluster), acknowledged, true);
    assertTrue(r.ok(), r::describe);
  }

  /** Adds a new node, the leader killed while it holds the addition before {@code state}. */
  private void addKilledAt(String state) throws Exception {
    String id = addNode();
    Set<String> before = members();
    Holds.Hold hold = new Holds.Hold(ADD, state);
    Holds.armAll(cluster, hold);
    long add = change("add", "id", id, "address", cluster.raftAddress(id));
    String killed = killWhileHeld(hold, add);
    Drills.restartAndAwaitFollower(cluster, killed);
    assertSucceeded(add);
    Set<String> expected = new TreeSet<>(before);
    expected.add(id);
    assertEquals(expected, members(), ADD + " killed at " + state);
  }

  /** Removes {@code id}, the leader killed while it holds the removal before {@code state}. */
  private void removeKilledAt(String state, String id) throws Exception {
    Set<String> before = members();
    Holds.Hold hold = new Holds.Hold(REMOVE, state);
    Holds.armAll(cluster, hold);
    long remove = change("remove", "id", id);
    String killed = killWhileHeld(hold, remove);
    assertSucceeded(remove);
    Set<String> expected = new TreeSet<>(before);
    expected.remove(id);
    assertEquals(expected, members(), REMOVE + " of " + id + " killed at " + state);
    if (killed.equals(id)) {
      // killed before it was removed: restarted, it learns it was removed and stops by itself
      cluster.restart(killed);
      await(killed + " stopped by itself")
          .atMost(Drills.FINISH)
          .pollInterval(Drills.POLL)
          .until(() -> cluster.hasExited(killed));
      assertTrue(
          Files.readString(cluster.log(killed)).contains("no longer a member"),
          killed + " says why it stops");
    } else {
      Drills.restartAndAwaitFollower(cluster, killed);
      await(id + " stopped by itself")
          .atMost(Drills.FINISH)
          .pollInterval(Drills.POLL)
          .until(() -> cluster.hasExited(id));
    }
  }

  /**
   * Waits until the leader holds {@code procId} at the hold's state, releases the holds of every
   * other node (the next leader runs the state), and SIGKILLs the leader; returns its id.
   */
  private String killWhileHeld(Holds.Hold hold, long procId) throws Exception {
    Holds.awaitHeld(cluster, hold, procId);
    String leader = cluster.leader();
    Holds.armFollowers(cluster, leader);
    JsonNode held = cluster.procedures().get(procId);
    assertFalse(held.path("finished").asBoolean(), held::toString);
    Drills.Failover f = Drills.killLeader(cluster);
    assertEquals(leader, f.oldLeader());
    return leader;
  }

  /** Starts the next new node as a joining member and waits until it answers; returns its id. */
  private String addNode() throws Exception {
    String id = "cn" + nextId++;
    cluster.startJoiningNode(id);
    cluster.awaitAnswering(id);
    return id;
  }

  /** The member added last that does not lead. */
  private String newestFollower() throws Exception {
    String leader = cluster.leader();
    List<String> ids = cluster.nodeIds();
    for (int i = ids.size() - 1; i >= 0; i--) {
      String id = ids.get(i);
      if (!id.equals(leader) && members().contains(id)) {
        return id;
      }
    }
    throw new AssertionError("no follower among " + members());
  }

  private long change(String action, Object... args) throws Exception {
    return changes.submit(action, args);
  }

  private void assertSucceeded(long procId) throws Exception {
    JsonNode done = Drills.awaitFinished(cluster, procId);
    assertEquals("SUCCESS", done.path("state").asText(), done::toString);
  }

  private Set<String> members() throws Exception {
    return MembershipChanges.members(cluster);
  }
}
