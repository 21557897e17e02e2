package dev.baton.confignode.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.datanode.LedgerEntry;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import dev.baton.confignode.testing.TestDatabases;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.net.HttpURLConnection;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Conflicting ConfigNode procedures serialize on their locks: the first is held mid-step by a
 * stalled DataNode, the second parks with a wait reason naming the lock (in its procedure view and
 * in {@code GET /api/locks}, which followers forward to the leader), and after the release the
 * second runs only after the first finished. Databases use replication 1 so that a spare DataNode
 * remains after one test removes a DataNode.
 */
@Timeout(240)
class LockConflictTest {
  @RegisterExtension static final SimClusterExtension CLUSTER = new SimClusterExtension(3, 3);

  private static SimCluster cluster() {
    return CLUSTER.cluster();
  }

  /** A migration of a new database's region onto a spare DataNode, held at that DataNode. */
  private record HeldMigration(ClusterMetadata.Region region, int to, long procId) {}

  private static HeldMigration migrationHeldAtItsTarget(String database) throws Exception {
    ClusterMetadata.Region r = TestDatabases.firstRegionOfNewDatabase(cluster(), database, 1);
    int to = spare(r);
    long id = holdAtDataNode(to, "MigrateRegion", "regionId", r.id(), "from", r.leader(), "to", to);
    return new HeldMigration(r, to, id);
  }

  @Test
  void deletingADatabaseWaitsForTheMigrationOfItsRegion() throws Exception {
    HeldMigration held = migrationHeldAtItsTarget("lockmig");
    long delete = cluster().submit("DeleteDatabase", "name", "lockmig");

    String database = "database:lockmig";
    JsonNode view = awaitParked(delete, database, held.procId());
    assertEquals("DeleteDatabase", view.path("type").asText(), view.toString());

    // the lock table, from the leader and through a follower alike
    for (ConfigNodeServer asked : java.util.List.of(cluster().leader(), cluster().follower())) {
      JsonNode locks = locks(asked);
      assertEquals(
          cluster().leader().node().nodeId(), locks.path("nodeId").asText(), locks.toString());
      JsonNode lock = lock(locks, database);
      assertEquals("SHARED", lock.path("mode").asText(), lock.toString());
      assertEquals(
          held.procId(), lock.path("holders").path(0).path("procId").asLong(), lock.toString());
      assertEquals(delete, lock.path("waiters").path(0).path("procId").asLong(), lock.toString());
      assertEquals(
          "EXCLUSIVE", lock.path("waiters").path(0).path("mode").asText(), lock.toString());
      JsonNode region = lock(locks, "region:lockmig/" + held.region().id());
      assertEquals("EXCLUSIVE", region.path("mode").asText(), region.toString());
    }
    JsonNode executor = get(cluster().leader(), "/api/cluster").path("executor");
    assertTrue(executor.path("running").asInt() >= 1, "the stalled step runs: " + executor);

    cluster().dataNode(held.to()).releaseStall();
    cluster().awaitSuccess(held.procId());
    cluster().awaitSuccess(delete);
    assertRanAfter(delete, held.procId());
    assertTrue(cluster().metadata().database("lockmig").isEmpty());
    assertFalse(lockHeld(locks(cluster().follower()), database), "released once both finished");
    cluster().assertDataNodesMatchMetadata();
  }

  @Test
  void twoCreationsOfOneDatabaseRunOneAfterTheOther() throws Exception {
    for (int dn : cluster().dataNodeIds()) {
      cluster().dataNode(dn).stall();
    }
    long first = cluster().submit("CreateDatabase", "name", "twice", "replication", 1);
    SimCluster.waiting()
        .until(
            () -> cluster().dataNodeIds().stream().mapToInt(LockConflictTest::waiting).sum() >= 1);
    long second = cluster().submit("CreateDatabase", "name", "twice", "replication", 1);
    awaitParked(second, "database:twice", first);

    cluster().resetFaults();
    cluster().awaitSuccess(first);
    ProcedureInfo done = cluster().awaitRolledBack(second);
    assertTrue(done.failure().contains("database twice exists"), done.failure());
    assertTrue(cluster().ledger(Set.of(second)).isEmpty(), "the second created no region");
    cluster().assertDataNodesMatchMetadata();
  }

  @Test
  void removingADataNodeWaitsForAMigrationOntoIt() throws Exception {
    HeldMigration held = migrationHeldAtItsTarget("lockrm");
    long remove = cluster().submit("RemoveDataNode", "dataNodeId", held.to());
    awaitParked(remove, "node:" + held.to(), held.procId());

    cluster().dataNode(held.to()).releaseStall();
    cluster().awaitSuccess(held.procId());
    cluster().awaitSuccess(remove);
    assertRanAfter(remove, held.procId());
    ClusterMetadata.View meta = cluster().metadata();
    assertTrue(meta.dataNode(held.to()).isEmpty(), "DataNode " + held.to() + " removed");
    assertFalse(
        meta.region(held.region().id()).orElseThrow().replicas().contains(held.to()),
        "the migrated replica moved off again");
  }

  /** Stalls DataNode {@code dn}, submits, and waits until the procedure's command is held there. */
  private static long holdAtDataNode(int dn, String type, Object... args) throws Exception {
    cluster().dataNode(dn).stall();
    long id = cluster().submit(type, args);
    SimCluster.waiting().until(() -> waiting(dn) == 1);
    return id;
  }

  /**
   * Waits until the leader's view of {@code id} says it waits for {@code resource}, held by {@code
   * holder}; returns the view.
   */
  private static JsonNode awaitParked(long id, String resource, long holder) {
    JsonNode view =
        SimCluster.waiting()
            .until(
                () -> get(cluster().leader(), "/api/procedures/" + id),
                v -> !v.path("waitReason").isNull() && v.path("waitReason").isTextual());
    String reason = view.path("waitReason").asText();
    assertTrue(reason.contains(resource), reason);
    assertTrue(reason.contains(Long.toString(holder)), reason);
    assertFalse(view.path("finished").asBoolean(true), view.toString());
    assertTrue(cluster().ledger(Set.of(id)).isEmpty(), "no DataNode command while parked");
    return view;
  }

  /**
   * Every DataNode command of {@code later} (or of its children) came after every one of {@code
   * earlier}, and {@code earlier} succeeded.
   */
  private static void assertRanAfter(long later, long earlier) {
    long earlierLast =
        cluster().ledger(Set.of(earlier)).stream().mapToLong(LedgerEntry::time).max().orElseThrow();
    // Children are not queryable once their root finished; they have higher ids than their root,
    // and nothing else runs meanwhile, so the commands of ids from `later` on are its tree's.
    long laterFirst =
        cluster().dataNodeIds().stream()
            .flatMap(dn -> cluster().dataNodeServer(dn).state().ledger().stream())
            .filter(e -> e.procId() >= later)
            .mapToLong(LedgerEntry::time)
            .min()
            .orElseThrow(() -> new AssertionError("procedure " + later + " sent no command"));
    assertTrue(
        laterFirst >= earlierLast,
        "procedure " + later + " started at " + laterFirst + " before " + earlier + " ended");
    ProcedureInfo a = cluster().info(earlier).orElseThrow();
    ProcedureInfo b = cluster().info(later).orElseThrow();
    assertEquals(ProcedureState.SUCCESS, a.state());
    assertTrue(b.lastUpdate() >= a.lastUpdate(), a + " / " + b);
  }

  private static int spare(ClusterMetadata.Region r) {
    return cluster().dataNodeIds().stream()
        .filter(dn -> !r.replicas().contains(dn))
        .filter(dn -> cluster().metadata().dataNode(dn).isPresent())
        .findFirst()
        .orElseThrow();
  }

  private static int waiting(int dn) {
    try {
      return cluster().dataNode(dn).state().faults().waiting();
    } catch (Exception e) {
      throw new AssertionError("state of DataNode " + dn, e);
    }
  }

  private static JsonNode get(ConfigNodeServer node, String path) {
    RawHttp.Reply reply = new RawHttp(SimCluster.http(node)).get(path);
    assertEquals(HttpURLConnection.HTTP_OK, reply.status(), reply.body());
    return reply.json();
  }

  private static JsonNode locks(ConfigNodeServer node) {
    JsonNode locks = get(node, "/api/locks");
    assertTrue(locks.path("locks").isArray(), locks.toString());
    return locks;
  }

  private static boolean lockHeld(JsonNode locks, String resource) {
    for (JsonNode lock : locks.path("locks")) {
      if (resource.equals(lock.path("resource").asText()) && lock.path("holders").size() > 0) {
        return true;
      }
    }
    return false;
  }

  private static JsonNode lock(JsonNode locks, String resource) {
    for (JsonNode lock : locks.path("locks")) {
      if (resource.equals(lock.path("resource").asText())) {
        return lock;
      }
    }
    throw new AssertionError("no lock " + resource + " in " + locks);
  }
}
