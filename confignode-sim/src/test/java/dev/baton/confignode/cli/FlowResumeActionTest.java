package dev.baton.confignode.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.auth.Role;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import dev.baton.confignode.testing.TestTokens;
import java.net.HttpURLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flow resume as an operator action, on a 3-node cluster that requires tokens: {@code POST
 * /api/flows/{id}/nodes/{node}/resume} refuses a missing reason (400), a reader (403), an unknown
 * flow or node (404), and with a 409 that stays in the replicated trail as refused: a node that is
 * not PENDING, one shown PENDING only because its parent is, any node of a finished flow. A dry run
 * (on a follower) answers the plan and changes neither the flow nor the trail. A resume on a
 * follower is in every node's trail with principal, reason, time, node and how; the CLI verb does
 * the same, with {@code --dry-run} and {@code --format table}.
 */
@Timeout(180)
class FlowResumeActionTest {
  /**
   * A flow whose node {@code bad} fails (no such database) and is suspended, {@code e} after it.
   */
  private static final String SUSPENDING_FLOW =
      """
      {"nodes":[{"name":"s","type":"Noop"},
                {"name":"bad","type":"DeleteDatabase","args":{"name":"nosuchdb"}},
                {"name":"e","type":"Noop"}],
       "edges":[{"parent":"s","child":"bad"},{"parent":"bad","child":"e"}]}
      """;

  @RegisterExtension
  static final SimClusterExtension CLUSTER = SimClusterExtension.withTokens(3, 0);

  @TempDir static Path dir;

  private static SimCluster cluster;

  @BeforeAll
  static void cluster() {
    cluster = CLUSTER.cluster();
  }

  private static RawHttp as(Role role, ConfigNodeServer node) {
    return TestTokens.as(role, node);
  }

  /** A flow submitted and waited for until its {@code bad} node is suspended. */
  private static long pendingFlow() {
    RawHttp.Reply r = as(Role.OPERATOR, cluster.leader()).post("/api/flows", SUSPENDING_FLOW);
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    long id = r.json().path("flowId").asLong();
    awaitFlow(id, "PENDING");
    return id;
  }

  private static JsonNode flow(long id) {
    return as(Role.READER, cluster.follower()).get("/api/flows/" + id).json();
  }

  private static JsonNode awaitFlow(long id, String state) {
    return SimCluster.waiting().until(() -> flow(id), f -> f.path("state").asText().equals(state));
  }

  private static String nodeState(JsonNode flow, String name) {
    for (JsonNode n : flow.path("nodes")) {
      if (n.path("name").asText().equals(name)) {
        return n.path("state").asText();
      }
    }
    throw new AssertionError("no node " + name + " in " + flow);
  }

  private static JsonNode trail(ConfigNodeServer node, long flowId) {
    RawHttp.Reply r = as(Role.READER, node).get("/api/audit?procId=" + flowId);
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    return r.json();
  }

  private static String resumePath(long id, String node) {
    return "/api/flows/" + id + "/nodes/" + node + "/resume";
  }

  @Test
  void badRequestsAreRefusedBeforeAnythingIsRecorded() {
    long id = pendingFlow();
    RawHttp op = as(Role.OPERATOR, cluster.follower());
    String noReason = op.post(resumePath(id, "bad"), "{}").assertError(400, "invalid_request");
    assertTrue(noReason.contains("reason"), noReason);
    op.post(resumePath(id, "bad"), "").assertError(400, "invalid_request");
    op.post(resumePath(id, "bad"), "{\"reason\":\"  \"}").assertError(400, "invalid_request");
    as(Role.READER, cluster.follower())
        .post(resumePath(id, "bad"), "{\"reason\":\"r\"}")
        .assertError(403, "forbidden");
    op.post(resumePath(id, "nope"), "{\"reason\":\"r\"}").assertError(404, "not_found");
    op.post(resumePath(999_999, "bad"), "{\"reason\":\"r\"}").assertError(404, "not_found");
    assertEquals(0, trail(cluster.leader(), id).size());
    assertEquals("PENDING", nodeState(flow(id), "bad"));
  }

  @Test
  void illegalResumesAreRefusedWithTheReasonAndTheRefusalIsAudited() {
    long id = pendingFlow();
    RawHttp op = as(Role.OPERATOR, cluster.leader());
    String notPending =
        op.post(resumePath(id, "s"), "{\"reason\":\"try s\"}").assertError(409, "refused");
    assertTrue(notPending.contains("is SUCCESS, not PENDING"), notPending);
    String shown =
        op.post(resumePath(id, "e"), "{\"reason\":\"try e\"}").assertError(409, "refused");
    assertTrue(shown.contains("resume that node"), shown);

    for (ConfigNodeServer node : cluster.nodes()) {
      JsonNode trail = trail(node, id);
      assertEquals(2, trail.size(), trail.toString());
      JsonNode first = trail.get(0);
      assertEquals("resume", first.path("action").asText(), first.toString());
      assertEquals("s", first.path("flowNode").asText(), first.toString());
      assertEquals("RERUN", first.path("resumeAction").asText(), first.toString());
      assertEquals("op", first.path("principal").asText(), first.toString());
      assertEquals("try s", first.path("reason").asText(), first.toString());
      assertTrue(first.path("decided").asBoolean(), first.toString());
      assertTrue(first.path("refused").asBoolean(), first.toString());
      assertEquals(notPending, first.path("outcome").asText(), first.toString());
      assertEquals("e", trail.get(1).path("flowNode").asText(), trail.toString());
    }

    op.post(resumePath(id, "bad"), "{\"reason\":\"finish it\",\"action\":\"MARK_FAILED\"}");
    awaitFlow(id, "FINISH");
    String finished =
        op.post(resumePath(id, "bad"), "{\"reason\":\"late\",\"dryRun\":true}")
            .assertError(409, "refused");
    assertTrue(finished.contains("is finished"), finished);
    String late =
        op.post(resumePath(id, "bad"), "{\"reason\":\"late\"}").assertError(409, "refused");
    assertTrue(late.contains("is finished"), late);
    JsonNode trail = trail(cluster.follower(), id);
    assertEquals(4, trail.size(), "the dry run left nothing: " + trail);
    assertTrue(trail.get(3).path("refused").asBoolean(), trail.toString());
  }

  @Test
  void aDryRunOnAFollowerAnswersThePlanAndChangesNothing() {
    long id = pendingFlow();
    JsonNode before = flow(id);
    RawHttp.Reply r =
        as(Role.OPERATOR, cluster.follower())
            .post(
                resumePath(id, "bad"),
                "{\"reason\":\"try\",\"action\":\"MARK_SUCCEEDED\",\"dryRun\":true}");
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    JsonNode plan = r.json();
    assertEquals("resume", plan.path("action").asText(), plan.toString());
    assertEquals(id, plan.path("flowId").asLong(), plan.toString());
    assertEquals("MARK_SUCCEEDED", plan.path("resumeAction").asText(), plan.toString());
    JsonNode change = plan.path("states").path(0);
    assertEquals("bad", change.path("node").asText(), plan.toString());
    assertEquals("PENDING", change.path("from").asText(), plan.toString());
    assertEquals("SUCCESS", change.path("to").asText(), plan.toString());
    assertTrue(plan.path("effect").asText().contains("succeeded"), plan.toString());

    assertEquals(before, flow(id));
    assertEquals(0, trail(cluster.leader(), id).size());
  }

  @Test
  void aResumeOnAFollowerRunsTheFlowOnAndEveryTrailShowsWhoWhyAndHow() {
    long id = pendingFlow();
    long beforeMillis = System.currentTimeMillis();
    RawHttp.Reply r =
        as(Role.OPERATOR, cluster.follower())
            .post(
                resumePath(id, "bad"),
                "{\"reason\":\"database was never made\",\"action\":\"MARK_SUCCEEDED\"}");
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    assertEquals("SUCCESS", nodeState(r.json().path("flow"), "bad"), r.body());
    JsonNode entry = r.json().path("audit");
    assertFalse(entry.path("refused").asBoolean(), entry.toString());
    assertTrue(entry.path("timeMillis").asLong() >= beforeMillis, entry.toString());

    JsonNode done = awaitFlow(id, "FINISH");
    assertEquals("SUCCESS", nodeState(done, "e"), done.toString());
    for (ConfigNodeServer node : cluster.nodes()) {
      JsonNode trail = trail(node, id);
      assertEquals(1, trail.size(), trail.toString());
      JsonNode e = trail.get(0);
      assertEquals(entry.path("index").asLong(), e.path("index").asLong(), e.toString());
      assertEquals("op", e.path("principal").asText(), e.toString());
      assertEquals("database was never made", e.path("reason").asText(), e.toString());
      assertEquals("bad", e.path("flowNode").asText(), e.toString());
      assertEquals("MARK_SUCCEEDED", e.path("resumeAction").asText(), e.toString());
      assertEquals(entry.path("timeMillis").asLong(), e.path("timeMillis").asLong());
      assertFalse(e.path("refused").asBoolean(), e.toString());
    }
  }

  @Test
  void theCliResumesWithAReasonAndADryRun() throws Exception {
    Path token = dir.resolve("op.token");
    Files.writeString(token, TestTokens.TOKENS.get(Role.OPERATOR));
    long id = pendingFlow();
    String flow = Long.toString(id);

    CliRun plan =
        run(token, "resume", "--flow", flow, "--node", "bad", "--reason", "look", "--dry-run");
    assertEquals(0, plan.code(), plan::toString);
    assertEquals(
        "READY", Json.LENIENT.readTree(plan.out()).path("states").path(0).path("to").asText());
    CliRun table = resume(token, flow, "fail", "look", "--dry-run", "--format", "table");
    assertEquals(0, table.code(), table::toString);
    List<String> lines = List.of(table.out().split("\\R"));
    assertEquals(
        "dry run, nothing changed: resume (MARK_FAILED) of node bad of flow " + id, lines.get(0));
    assertTrue(lines.get(2).matches("bad +PENDING +ERROR"), table::toString);
    assertEquals("PENDING", nodeState(flow(id), "bad"));

    CliRun noReason = run(token, "resume", "--flow", flow, "--node", "bad");
    assertEquals(ConfigNodeCli.EXIT_USAGE, noReason.code(), noReason::toString);

    CliRun resumed = resume(token, flow, "fail", "give up on it", "--format", "table");
    assertEquals(0, resumed.code(), resumed::toString);
    assertTrue(
        resumed
            .out()
            .split("\\R")[1]
            .matches(
                "\\d+ +\\S+ +op +resume node bad \\(MARK_FAILED\\) +" + id + " .*give up on it"),
        resumed::toString);
    assertEquals("ERROR", nodeState(awaitFlow(id, "FINISH"), "bad"));

    CliRun refused = run(token, "resume", "--flow", flow, "--node", "bad", "--reason", "again");
    assertEquals(ClientCommand.EXIT_REFUSED, refused.code(), refused::toString);
    assertTrue(refused.err().contains("409 refused"), refused::toString);
  }

  /** {@code resume} of node {@code bad} of {@code flow} with {@code action} and {@code reason}. */
  private static CliRun resume(
      Path token, String flow, String action, String reason, String... more) {
    List<String> line =
        new ArrayList<>(
            List.of(
                "resume", "--flow", flow, "--node", "bad", "--action", action, "--reason", reason));
    line.addAll(List.of(more));
    return run(token, line.toArray(String[]::new));
  }

  private static CliRun run(Path token, String... args) {
    return CliRun.against(cluster, token, args);
  }
}
