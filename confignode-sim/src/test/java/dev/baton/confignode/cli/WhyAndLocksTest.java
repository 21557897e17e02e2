package dev.baton.confignode.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import dev.baton.confignode.testing.TestDatabases;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Why a procedure is stuck, followed to its root cause, on a 3-node cluster: a migration is held by
 * a stalled DataNode in its ADD_PEER call, and a deletion of its database waits for the database
 * lock the migration holds. {@code GET /api/procedures/{id}/why} (from the leader, and from a
 * follower with the leader's view) answers the chain deletion, lock, migration, DataNode call;
 * {@code GET /api/procedures/{id}} carries each one's {@code blockedOn}; the {@code why} and {@code
 * locks} commands print the same for people and as JSON.
 */
@Timeout(240)
class WhyAndLocksTest {
  private static final AtomicInteger DATABASE_COUNT = new AtomicInteger();

  @RegisterExtension static final SimClusterExtension CLUSTER = new SimClusterExtension(3, 3);

  private String database;
  private int target;
  private long migration;
  private long deletion;

  private static SimCluster cluster() {
    return CLUSTER.cluster();
  }

  /**
   * A new database's migration held at its target's stalled ADD_PEER, its deletion parked behind it
   * (the extension releases every stall after each test).
   */
  @BeforeEach
  void holdAMigrationAndParkADeletionBehindIt() throws Exception {
    database = "why" + DATABASE_COUNT.incrementAndGet();
    ClusterMetadata.Region r = TestDatabases.firstRegionOfNewDatabase(cluster(), database, 1);
    target =
        cluster().dataNodeIds().stream()
            .filter(dn -> !r.replicas().contains(dn))
            .findFirst()
            .orElseThrow();
    cluster().dataNode(target).stall();
    migration =
        cluster().submit("MigrateRegion", "regionId", r.id(), "from", r.leader(), "to", target);
    SimCluster.waiting().until(() -> cluster().dataNode(target).state().faults().waiting() == 1);
    deletion = cluster().submit("DeleteDatabase", "name", database);
    SimCluster.waiting()
        .until(
            () -> view(cluster().leader(), deletion).path("blockedOn").path("kind").asText(),
            "lock"::equals);
  }

  @AfterEach
  void release() throws Exception {
    cluster().dataNode(target).releaseStall();
    cluster().awaitSuccess(migration);
    cluster().awaitSuccess(deletion);
  }

  private static JsonNode get(ConfigNodeServer node, String path) {
    RawHttp.Reply reply = new RawHttp(SimCluster.http(node)).get(path);
    assertEquals(HttpURLConnection.HTTP_OK, reply.status(), reply.body());
    return reply.json();
  }

  private static JsonNode view(ConfigNodeServer node, long id) {
    return get(node, "/api/procedures/" + id);
  }

  @Test
  void theChainGoesFromTheWaitingDeletionThroughTheLockToTheDataNodeCall() {
    for (ConfigNodeServer asked : List.of(cluster().leader(), cluster().follower())) {
      JsonNode why = get(asked, "/api/procedures/" + deletion + "/why");
      assertEquals(cluster().leader().node().nodeId(), why.path("nodeId").asText(), why.toString());
      assertEquals(deletion, why.path("procId").asLong(), why.toString());
      assertEquals(false, why.path("cycle").asBoolean(true), why.toString());
      JsonNode links = why.path("links");
      assertEquals(2, links.size(), why.toString());

      JsonNode waiting = links.get(0);
      assertEquals(deletion, waiting.path("procId").asLong());
      assertEquals("DeleteDatabase", waiting.path("type").asText());
      JsonNode lock = waiting.path("blockedOn");
      assertEquals("lock", lock.path("kind").asText(), why.toString());
      assertEquals("database:" + database, lock.path("resource").asText(), why.toString());
      assertEquals("EXCLUSIVE", lock.path("wanted").asText(), why.toString());
      assertEquals(migration, lock.path("holders").path(0).path("procId").asLong(), why.toString());
      assertTrue(lock.path("holders").path(0).path("since").asLong() > 0, why.toString());
      assertEquals(migration, lock.path("waitsFor").path(0).asLong(), why.toString());

      JsonNode holder = links.get(1);
      assertEquals(migration, holder.path("procId").asLong());
      assertEquals("ADD_PEER", holder.path("step").asText(), why.toString());
      JsonNode call = holder.path("blockedOn");
      assertEquals("externalCall", call.path("kind").asText(), why.toString());
      assertTrue(
          call.path("target").asText().startsWith("DataNode " + target + " at 127.0.0.1:"),
          why.toString());
      assertEquals("create_region ADD_PEER", call.path("command").asText(), why.toString());
      assertEquals(1, call.path("attempt").asInt(), why.toString());
      assertEquals(0, call.path("nextRetry").asLong(), "in flight: " + why);

      String root = why.path("rootCause").asText();
      assertTrue(
          root.startsWith(
              "procedure " + migration + ": in call create_region ADD_PEER to DataNode " + target),
          root);
    }
  }

  @Test
  void eachProcedureViewCarriesWhatItIsBlockedOn() {
    JsonNode waiting = view(cluster().leader(), deletion);
    assertEquals("lock", waiting.path("blockedOn").path("kind").asText(), waiting.toString());
    assertTrue(
        waiting.path("waitReason").asText().startsWith("waiting for lock database:" + database),
        waiting.toString());
    JsonNode held = view(cluster().leader(), migration);
    assertEquals("externalCall", held.path("blockedOn").path("kind").asText(), held.toString());
    assertTrue(
        held.path("waitReason").asText().startsWith("in call create_region ADD_PEER"),
        held.toString());
  }

  @Test
  void theLockTableShowsNoCycleAndNoDeadlock() {
    JsonNode locks = get(cluster().follower(), "/api/locks");
    assertTrue(locks.path("cycles").isArray(), locks.toString());
    assertEquals(0, locks.path("cycles").size(), locks.toString());
    assertEquals(0, locks.path("deadlocks").asLong(-1), locks.toString());
  }

  @Test
  void anUnknownProcedureHasNoChain() {
    new RawHttp(SimCluster.http(cluster().follower()))
        .get("/api/procedures/999999/why")
        .assertError(HttpURLConnection.HTTP_NOT_FOUND, "not_found");
    CliRun r = run("why", "999999");
    assertEquals(ClientCommand.EXIT_REFUSED, r.code(), r::toString);
    assertTrue(r.err().contains("not_found") || r.err().contains("404"), r::toString);
  }

  @Test
  void whyPrintsTheChainAsJsonAndAsATable() throws IOException {
    CliRun json = run("why", Long.toString(deletion));
    assertEquals(0, json.code(), json::toString);
    JsonNode chain = Json.LENIENT.readTree(json.out());
    assertEquals(List.of(deletion, migration), toIds(chain.path("links")), json::toString);

    CliRun table = run("why", Long.toString(deletion), "--format", "table");
    assertEquals(0, table.code(), table::toString);
    String[] lines = table.out().split("\\R");
    assertTrue(lines[0].matches("ID +TYPE +STATE +STEP +BLOCKED ON +WHY"), table::toString);
    assertTrue(
        lines[1].matches(
            deletion
                + " +DeleteDatabase +RUNNABLE .* lock +waiting for lock database:"
                + database
                + ".*"),
        table::toString);
    assertTrue(
        lines[2].matches(
            migration
                + " +MigrateRegion +RUNNABLE +ADD_PEER +externalCall +in call create_region ADD_PEER to DataNode "
                + target
                + ".*"),
        table::toString);
    assertTrue(
        lines[3].startsWith(
            "root cause: procedure " + migration + ": in call create_region ADD_PEER"),
        table::toString);
  }

  @Test
  void locksPrintsHoldersWaitersInOrderAndCycles() throws IOException {
    CliRun json = run("locks");
    assertEquals(0, json.code(), json::toString);
    JsonNode table = Json.LENIENT.readTree(json.out());
    assertTrue(table.path("locks").isArray(), json::toString);
    assertTrue(table.path("cycles").isArray(), json::toString);

    CliRun text = run("locks", "--format", "table");
    assertEquals(0, text.code(), text::toString);
    List<String> lines = List.of(text.out().split("\\R"));
    assertTrue(lines.get(0).matches("RESOURCE +MODE +HELD MS +HOLDERS +WAITERS"), text::toString);
    String row =
        lines.stream()
            .filter(l -> l.startsWith("database:" + database + " "))
            .findFirst()
            .orElseThrow(() -> new AssertionError(text));
    assertTrue(
        row.matches(
            "database:"
                + database
                + " +SHARED +\\d+ +"
                + migration
                + " MigrateRegion SHARED +"
                + deletion
                + " DeleteDatabase EXCLUSIVE"),
        row);
    assertTrue(lines.contains("cycles: none"), text::toString);
    assertTrue(
        lines.get(lines.size() - 1).matches("deadlocks found in term \\d+: 0"), text::toString);

    CliRun bad = run("locks", "--format", "yaml");
    assertEquals(ConfigNodeCli.EXIT_USAGE, bad.code(), bad::toString);
  }

  private static List<Long> toIds(JsonNode links) {
    List<Long> ids = new ArrayList<>();
    links.forEach(l -> ids.add(l.path("procId").asLong()));
    return ids;
  }

  private static CliRun run(String... args) {
    List<String> line = new ArrayList<>(List.of(args));
    line.add("--cluster");
    line.add(cluster().nodes().stream().map(SimCluster::http).collect(Collectors.joining(",")));
    return CliRun.main(line.toArray(String[]::new));
  }
}
