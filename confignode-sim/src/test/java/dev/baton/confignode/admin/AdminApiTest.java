package dev.baton.confignode.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.PromText;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import java.net.HttpURLConnection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin API's happy paths on a 3-node ConfigNode cluster: any node accepts submissions, reads
 * agree across nodes, list filters, nonce retries, abort, the cluster view and metrics.
 */
@Timeout(180)
class AdminApiTest {
  /** A sleep that outlives the test: it ends only by abort. */
  private static final long LONG_SLEEP_MILLIS = 600_000;

  private static final long NONCE_GROUP = 31;
  private static final AtomicLong NONCES = new AtomicLong();

  @TempDir static Path dir;

  private static SimCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = SimCluster.start(dir, 3, 0);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static RawHttp http(ConfigNodeServer node) {
    return new RawHttp(SimCluster.http(node));
  }

  private static JsonNode ok(RawHttp.Reply r) {
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    assertEquals("application/json", r.contentType(), r.body());
    return r.json();
  }

  /** Submits; a body without a nonce gets a fresh one, so a retried request is one procedure. */
  private static long submit(ConfigNodeServer node, String body) throws Exception {
    ObjectNode json = (ObjectNode) Json.LENIENT.readTree(body);
    if (!json.has("nonce")) {
      json.putObject("nonce").put("group", NONCE_GROUP).put("nonce", NONCES.incrementAndGet());
    }
    JsonNode reply = ok(http(node).post("/api/procedures", json.toString()));
    long id = reply.path("procId").asLong();
    assertTrue(id > 0, reply.toString());
    return id;
  }

  private static JsonNode awaitState(ConfigNodeServer node, long id, String state) {
    return await()
        .atMost(SimCluster.WAIT)
        .ignoreExceptions()
        .until(
            () -> ok(http(node).get("/api/procedures/" + id)),
            p -> state.equals(p.path("state").asText()));
  }

  private static List<Long> ids(JsonNode list) {
    List<Long> out = new ArrayList<>();
    list.forEach(p -> out.add(p.path("procId").asLong()));
    return out;
  }

  @Test
  void submissionOnAFollowerRunsOnTheLeaderAndEveryNodeReadsIt() throws Exception {
    ConfigNodeServer follower = cluster.follower();
    long id = submit(follower, "{\"type\":\"Noop\"}");

    for (ConfigNodeServer node : cluster.nodes()) {
      JsonNode p = awaitState(node, id, "SUCCESS");
      assertEquals(id, p.path("procId").asLong());
      assertEquals(-1, p.path("parentProcId").asLong());
      assertEquals(id, p.path("rootProcId").asLong());
      assertEquals("Noop", p.path("type").asText());
      assertTrue(p.path("finished").asBoolean(), p.toString());
      assertEquals("THIRD", p.path("step").asText(), "the last state that ran");
      assertFalse(p.has("failure"), p.toString());
      assertTrue(p.path("submittedTime").asLong() > 0, p.toString());
      assertTrue(p.path("lastUpdate").asLong() >= p.path("submittedTime").asLong(), p.toString());
    }
  }

  @Test
  void aRetriedNonceReturnsTheFirstProcIdOnAnyNode() throws Exception {
    String body = "{\"type\":\"Noop\",\"nonce\":{\"group\":9,\"nonce\":42}}";
    List<ConfigNodeServer> nodes = cluster.nodes();
    long first = submit(nodes.get(0), body);
    for (ConfigNodeServer node : nodes) {
      assertEquals(first, submit(node, body), "retry on " + node.node().nodeId());
    }
    long other = submit(nodes.get(1), "{\"type\":\"Noop\",\"nonce\":{\"group\":9,\"nonce\":43}}");
    assertNotEquals(first, other, "another nonce is another procedure");
    long noNonce = submit(nodes.get(2), "{\"type\":\"Noop\"}");
    assertNotEquals(first, noNonce);

    cluster.awaitSuccess(first);
    List<Long> all = ids(ok(http(nodes.get(2)).get("/api/procedures")));
    assertEquals(1, all.stream().filter(i -> i == first).count(), "one procedure for the nonce");
  }

  @Test
  void listFiltersByStateAndType() throws Exception {
    ConfigNodeServer node = cluster.follower();
    long noop = submit(node, "{\"type\":\"Noop\"}");
    long sleep =
        submit(node, "{\"type\":\"Sleep\",\"args\":{\"millis\":" + LONG_SLEEP_MILLIS + "}}");
    cluster.awaitSuccess(noop);
    awaitState(node, sleep, "WAITING_TIMEOUT");
    try {
      RawHttp api = http(node);
      List<Long> sleeps = ids(ok(api.get("/api/procedures?type=Sleep")));
      assertTrue(sleeps.contains(sleep), sleeps.toString());
      assertFalse(sleeps.contains(noop), sleeps.toString());
      ok(api.get("/api/procedures?type=Sleep"))
          .forEach(p -> assertEquals("Sleep", p.path("type").asText()));

      List<Long> succeeded = ids(ok(api.get("/api/procedures?state=SUCCESS")));
      assertTrue(succeeded.contains(noop), succeeded.toString());
      assertFalse(succeeded.contains(sleep), succeeded.toString());
      ok(api.get("/api/procedures?state=SUCCESS"))
          .forEach(p -> assertEquals("SUCCESS", p.path("state").asText()));

      assertEquals(
          List.of(sleep), ids(ok(api.get("/api/procedures?state=WAITING_TIMEOUT&type=Sleep"))));
      assertEquals(List.of(), ids(ok(api.get("/api/procedures?state=SUCCESS&type=Sleep"))));
      assertEquals(List.of(), ids(ok(api.get("/api/procedures?type=NoSuchType"))));

      List<Long> all = ids(ok(api.get("/api/procedures")));
      assertTrue(all.containsAll(List.of(noop, sleep)), all.toString());
    } finally {
      http(node).post("/api/procedures/" + sleep + "/abort", null);
    }
  }

  @Test
  void abortOfASleepingProcedureRollsItBack() throws Exception {
    ConfigNodeServer follower = cluster.follower();
    long sleep =
        submit(follower, "{\"type\":\"Sleep\",\"args\":{\"millis\":" + LONG_SLEEP_MILLIS + "}}");
    JsonNode waiting = awaitState(follower, sleep, "WAITING_TIMEOUT");
    assertEquals("WAKE", waiting.path("step").asText(), "parked with WAKE as its next state");

    // StateMachineProcedure's default abort accepts: WAKE (the current state) can be rolled back.
    JsonNode reply = ok(http(follower).post("/api/procedures/" + sleep + "/abort", null));
    assertTrue(reply.path("aborted").asBoolean(), reply.toString());

    JsonNode done = awaitState(cluster.leader(), sleep, "ROLLEDBACK");
    assertTrue(done.path("finished").asBoolean(), done.toString());
    assertTrue(done.path("failure").asText().contains("aborted"), done.toString());

    JsonNode again = ok(http(cluster.leader()).post("/api/procedures/" + sleep + "/abort", null));
    assertFalse(again.path("aborted").asBoolean(), "a finished procedure cannot be aborted");
  }

  @Test
  void abortOfAFinishedProcedureAnswersFalse() throws Exception {
    long noop = submit(cluster.leader(), "{\"type\":\"Noop\"}");
    cluster.awaitSuccess(noop);
    JsonNode reply = ok(http(cluster.follower()).post("/api/procedures/" + noop + "/abort", null));
    assertFalse(reply.path("aborted").asBoolean(), reply.toString());
    assertEquals("SUCCESS", cluster.info(noop).orElseThrow().state().name());
  }

  @Test
  void clusterViewOfEveryNodeAgreesOnLeaderTermAndPeers() {
    ConfigNodeServer leader = cluster.leader();
    String leaderId = leader.node().nodeId();
    for (ConfigNodeServer node : cluster.nodes()) {
      JsonNode c =
          await()
              .atMost(SimCluster.WAIT)
              .ignoreExceptions()
              .until(
                  () -> ok(http(node).get("/api/cluster")),
                  j -> leaderId.equals(j.path("leaderId").asText()));
      boolean isLeader = node == leader;
      assertEquals(node.node().nodeId(), c.path("nodeId").asText(), c.toString());
      assertEquals(isLeader ? "LEADER_RUNNING" : "FOLLOWER", c.path("role").asText(), c.toString());
      assertEquals(leader.node().term(), c.path("term").asLong(), c.toString());
      List<String> peers = new ArrayList<>();
      c.path("peers").forEach(p -> peers.add(p.asText()));
      assertEquals(List.of("cn1", "cn2", "cn3"), peers.stream().sorted().toList());
      JsonNode executor = c.path("executor");
      assertTrue(executor.isObject(), c.toString());
      assertEquals(
          isLeader ? "RUNNING" : "FOLLOWER", executor.path("state").asText(), c.toString());
      assertFalse(executor.path("recovering").asBoolean(true), c.toString());
      assertFalse(executor.has("recoveryStage"), c.toString());
      assertEquals(isLeader, executor.path("workers").asInt() > 0, c.toString());
      for (String count : List.of("running", "queued")) {
        assertTrue(executor.path(count).isInt(), count + " in " + c);
        assertTrue(executor.path(count).asInt() >= 0, count + " in " + c);
      }
      if (isLeader) {
        assertEquals(
            leader.node().term(), executor.path("lastRecoveryTerm").asLong(), c.toString());
      }
      assertEquals(0, c.path("rejectedStaleWrites").asLong(-1), c.toString());
    }
  }

  @Test
  void metadataViewListsDatabasesRegionsAndDataNodes() throws Exception {
    JsonNode m = ok(http(cluster.follower()).get("/api/metadata"));
    for (String field : List.of("databases", "regions", "dataNodes")) {
      assertTrue(m.path(field).isArray(), m.toString());
      assertEquals(0, m.path(field).size(), "no DataNodes in this cluster: " + m);
    }
  }

  @Test
  void metricsAreInPrometheusTextFormat() throws Exception {
    cluster.awaitSuccess(submit(cluster.leader(), "{\"type\":\"Noop\"}"));
    ConfigNodeServer leader = cluster.leader();
    for (ConfigNodeServer node : cluster.nodes()) {
      await().atMost(SimCluster.WAIT).untilAsserted(() -> assertMetrics(node, leader));
    }
  }

  private static void assertMetrics(ConfigNodeServer node, ConfigNodeServer leader)
      throws Exception {
    RawHttp.Reply r = http(node).get("/metrics");
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    assertEquals("text/plain; version=0.0.4; charset=utf-8", r.contentType());
    PromText t = PromText.parse(r.body());
    boolean isLeader = node == leader;
    assertEquals(isLeader ? 1.0 : 0.0, t.get("baton_raft_leader"), r.body());
    assertEquals(isLeader ? 1.0 : 0.0, t.get("baton_executor_running"), r.body());
    assertEquals(leader.node().term(), (long) t.get("baton_raft_term"), r.body());
    assertEquals(0.0, t.get("baton_rejected_stale_writes_total"), r.body());
    assertEquals(isLeader, t.value("baton_procedures_live", "state", "runnable").isPresent());
    assertTrue(t.get("baton_applied_store_batches_total") > 0, r.body());
    assertTrue(t.get("baton_applied_write_entries_total") > 0, r.body());
    // the submission came in a store entry of the running leader, or alone
    assertTrue(
        t.get("baton_carried_submissions_total") + t.get("baton_applied_submit_entries_total") > 0,
        r.body());
  }
}
