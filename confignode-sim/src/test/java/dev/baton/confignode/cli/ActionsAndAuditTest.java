package dev.baton.confignode.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.auth.Role;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.http.Paging;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.TestTokens;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.net.HttpURLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operator actions through the admin API and the CLI on a 3-node cluster that requires tokens:
 * {@code POST /api/procedures/{id}/bypass|force-fail|retry-now} refuses a missing reason (400), a
 * reader (403), an unknown procedure (404) and a finished one (409); a dry run answers the leader's
 * plan, also asked on a follower, and changes nothing; a bypass of a sleeping procedure finishes it
 * and shows in {@code GET /api/audit} on a follower with the principal and reason; the trail is
 * filtered and paged; the CLI verbs do the same. An abort with a reason is audited the same way
 * (refused ones too); without a body it is answered as before and not audited.
 */
@Timeout(180)
class ActionsAndAuditTest {
  /** Long enough that only an operator ends the sleep within the test. */
  private static final long LONG_SLEEP_MILLIS = 600_000;

  private static final List<String> ACTIONS = List.of("bypass", "force-fail", "retry-now");

  @TempDir static Path dir;

  private static SimCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = SimCluster.startWithTokens(dir, 3, 0);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static RawHttp as(Role role, ConfigNodeServer node) {
    return new RawHttp(SimCluster.http(node)).withToken(TestTokens.TOKENS.get(role));
  }

  private static long sleeping() {
    long id = cluster.submit("Sleep", "millis", LONG_SLEEP_MILLIS);
    SimCluster.waiting()
        .until(
            () -> cluster.info(id).map(ProcedureInfo::state).orElse(null),
            ProcedureState.WAITING_TIMEOUT::equals);
    return id;
  }

  private static String body(String reason, boolean dryRun) {
    return "{\"reason\":\"" + reason + "\"" + (dryRun ? ",\"dryRun\":true" : "") + "}";
  }

  private static JsonNode audit(ConfigNodeServer node, String query) {
    RawHttp.Reply r = as(Role.READER, node).get("/api/audit?" + query);
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    return r.json();
  }

  @Test
  void aMissingOrBlankReasonIsABadRequest() {
    long id = sleeping();
    RawHttp op = as(Role.OPERATOR, cluster.follower());
    for (String action : ACTIONS) {
      String path = "/api/procedures/" + id + "/" + action;
      String noReason = op.post(path, "{}").assertError(400, "invalid_request");
      assertTrue(noReason.contains("reason"), noReason);
      op.post(path, "{\"reason\":\"   \",\"dryRun\":true}").assertError(400, "invalid_request");
      op.post(path, "").assertError(400, "invalid_request");
    }
    op.post("/api/procedures/" + id + "/force-fail", "{\"reason\":\"r\",\"recursive\":true}")
        .assertError(400, "invalid_request");
    assertEquals(0, audit(cluster.leader(), "procId=" + id).size());
    assertEquals(ProcedureState.WAITING_TIMEOUT, cluster.info(id).orElseThrow().state());
  }

  @Test
  void aReaderMayReadTheTrailButNotAct() {
    long id = sleeping();
    for (String action : ACTIONS) {
      as(Role.READER, cluster.leader())
          .post("/api/procedures/" + id + "/" + action, body("look", false))
          .assertError(HttpURLConnection.HTTP_FORBIDDEN, "forbidden");
    }
    assertTrue(audit(cluster.follower(), "procId=" + id).isArray());
    assertEquals(0, audit(cluster.follower(), "procId=" + id).size());
  }

  @Test
  void anUnknownProcedureIsNotFound() {
    for (String action : ACTIONS) {
      for (boolean dry : List.of(true, false)) {
        as(Role.OPERATOR, cluster.follower())
            .post("/api/procedures/999999/" + action, body("gone", dry))
            .assertError(HttpURLConnection.HTTP_NOT_FOUND, "not_found");
      }
    }
  }

  @Test
  void aFinishedProcedureIsRefusedWithTheReasonAndTheRefusalIsAudited() {
    long id = cluster.submit("Noop");
    cluster.awaitSuccess(id);
    for (ConfigNodeServer node : List.of(cluster.leader(), cluster.follower())) {
      for (String action : ACTIONS) {
        for (boolean dry : List.of(true, false)) {
          String why =
              as(Role.OPERATOR, node)
                  .post("/api/procedures/" + id + "/" + action, body("late", dry))
                  .assertError(HttpURLConnection.HTTP_CONFLICT, "refused");
          assertTrue(why.contains("finished (SUCCESS)"), why);
        }
      }
    }
    JsonNode trail = audit(cluster.follower(), "procId=" + id);
    assertEquals(2 * ACTIONS.size(), trail.size(), trail.toString()); // the dry runs are not there
    for (JsonNode e : trail) {
      assertTrue(e.path("refused").asBoolean(), e.toString());
      assertTrue(e.path("decided").asBoolean(), e.toString());
      assertEquals("op", e.path("principal").asText(), e.toString());
      assertTrue(e.path("outcome").asText().contains("finished"), e.toString());
    }
  }

  @Test
  void aDryRunAnswersThePlanOnAnyNodeAndChangesNothing() {
    long id = sleeping();
    for (ConfigNodeServer node : List.of(cluster.leader(), cluster.follower())) {
      RawHttp.Reply r =
          as(Role.OPERATOR, node).post("/api/procedures/" + id + "/bypass", body("try", true));
      assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
      JsonNode plan = r.json();
      assertEquals("BYPASS", plan.path("action").asText(), plan.toString());
      assertEquals(id, plan.path("procId").asLong(), plan.toString());
      assertTrue(plan.path("refusal").isMissingNode(), plan.toString()); // allowed
      JsonNode change = plan.path("states").path(0);
      assertEquals(id, change.path("procId").asLong(), plan.toString());
      assertEquals("WAITING_TIMEOUT", change.path("from").asText(), plan.toString());
      assertEquals("SUCCESS", change.path("to").asText(), plan.toString());
      assertFalse(plan.path("effect").asText().isEmpty(), plan.toString());

      RawHttp.Reply retry =
          as(Role.OPERATOR, node).post("/api/procedures/" + id + "/retry-now", body("try", true));
      assertEquals(HttpURLConnection.HTTP_OK, retry.status(), retry.body());
      assertEquals("RUNNABLE", retry.json().path("states").path(0).path("to").asText());
    }
    assertEquals(ProcedureState.WAITING_TIMEOUT, cluster.info(id).orElseThrow().state());
    assertEquals(0, audit(cluster.follower(), "procId=" + id).size());
  }

  @Test
  void aBypassFinishesAStuckProcedureAndTheFollowersTrailShowsWhoAndWhy() throws Exception {
    long id = sleeping();
    ConfigNodeServer asked = cluster.follower();
    double before = bypassesDone(asked);
    RawHttp.Reply r =
        as(Role.OPERATOR, asked)
            .post("/api/procedures/" + id + "/bypass", body("stuck since the drill", false));
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    JsonNode entry = r.json();
    assertEquals("bypass", entry.path("action").asText(), entry.toString());
    assertEquals("op", entry.path("principal").asText(), entry.toString());
    assertFalse(entry.path("refused").asBoolean(), entry.toString());
    assertEquals(ProcedureState.SUCCESS, cluster.awaitFinished(id).state());
    assertEquals(before + 1, bypassesDone(asked));

    for (ConfigNodeServer node : cluster.nodes()) {
      JsonNode trail = audit(node, "procId=" + id);
      assertEquals(1, trail.size(), trail.toString());
      JsonNode e = trail.get(0);
      assertEquals(entry.path("index").asLong(), e.path("index").asLong(), e.toString());
      assertEquals("op", e.path("principal").asText(), e.toString());
      assertEquals("stuck since the drill", e.path("reason").asText(), e.toString());
      assertTrue(e.path("decided").asBoolean(), e.toString());
      assertFalse(e.path("refused").asBoolean(), e.toString());
    }
  }

  private static double bypassesDone(ConfigNodeServer node) throws Exception {
    Map<String, Double> samples = cluster.api().metrics(SimCluster.http(node));
    return samples.getOrDefault(
        "baton_operator_actions_total{action=\"bypass\",outcome=\"done\"}", -1.0);
  }

  @Test
  void theTrailIsFilteredAndPaged() {
    long id = cluster.submit("Noop");
    cluster.awaitSuccess(id);
    long start = System.currentTimeMillis();
    for (int i = 0; i < 3; i++) {
      as(Role.OPERATOR, cluster.leader())
          .post("/api/procedures/" + id + "/retry-now", body("page " + i, false))
          .assertError(HttpURLConnection.HTTP_CONFLICT, "refused");
    }
    as(Role.ADMIN, cluster.leader())
        .post("/api/procedures/" + id + "/retry-now", body("admin's", false))
        .assertError(HttpURLConnection.HTTP_CONFLICT, "refused");

    ConfigNodeServer follower = cluster.follower();
    RawHttp reader = as(Role.READER, follower);
    RawHttp.Reply first = reader.get("/api/audit?principal=op&procId=" + id + "&limit=2");
    assertEquals(HttpURLConnection.HTTP_OK, first.status(), first.body());
    assertEquals(List.of("page 0", "page 1"), reasons(first.json()));
    String next = first.header(Paging.NEXT_AFTER_HEADER).orElseThrow();
    assertEquals(first.json().get(1).path("index").asText(), next);
    RawHttp.Reply second =
        reader.get("/api/audit?principal=op&procId=" + id + "&limit=2&after=" + next);
    assertEquals(List.of("page 2"), reasons(second.json()));
    assertTrue(second.header(Paging.NEXT_AFTER_HEADER).isEmpty(), second::toString);

    assertEquals(List.of("admin's"), reasons(audit(follower, "principal=admin&procId=" + id)));
    assertEquals(4, audit(follower, "procId=" + id + "&since=" + start).size());
    assertEquals(0, audit(follower, "procId=" + id + "&until=" + start).size());
    assertEquals(0, audit(follower, "since=2999-01-01T00:00:00Z").size());
    reader.get("/api/audit?since=yesterday").assertError(400, "invalid_request");
    reader.get("/api/audit?limit=0").assertError(400, "invalid_request");
  }

  private static List<String> reasons(JsonNode entries) {
    List<String> out = new ArrayList<>();
    entries.forEach(e -> out.add(e.path("reason").asText()));
    return out;
  }

  @Test
  void theCliVerbsActPlanAndReadTheTrail() throws Exception {
    Path token = dir.resolve("op.token");
    Files.writeString(token, TestTokens.TOKENS.get(Role.OPERATOR));

    long bypassed = sleeping();
    CliRun plan =
        run(token, "bypass", "" + bypassed, "--reason", "cli", "--dry-run", "--format", "table");
    assertEquals(0, plan.code(), plan::toString);
    List<String> lines = List.of(plan.out().split("\\R"));
    assertEquals("dry run, nothing changed: BYPASS of procedure " + bypassed, lines.get(0));
    assertTrue(lines.get(1).matches("ID +TYPE +FROM +TO"), plan::toString);
    assertTrue(
        lines.get(2).matches(bypassed + " +Sleep +WAITING_TIMEOUT +SUCCESS"), plan::toString);
    assertEquals(ProcedureState.WAITING_TIMEOUT, cluster.info(bypassed).orElseThrow().state());

    CliRun bypass = run(token, "bypass", "" + bypassed, "--reason", "cli bypass", "--recursive");
    assertEquals(0, bypass.code(), bypass::toString);
    assertEquals("op", Json.LENIENT.readTree(bypass.out()).path("principal").asText());
    assertEquals(ProcedureState.SUCCESS, cluster.awaitFinished(bypassed).state());

    long retried = sleeping();
    CliRun retry = run(token, "retry-now", "" + retried, "--reason", "wake up");
    assertEquals(0, retry.code(), retry::toString);
    assertEquals(ProcedureState.SUCCESS, cluster.awaitFinished(retried).state());

    long failed = sleeping();
    CliRun fail = run(token, "force-fail", "" + failed, "--reason", "give up", "--format", "table");
    assertEquals(0, fail.code(), fail::toString);
    assertTrue(
        fail.out().split("\\R")[1].matches("\\d+ +\\S+ +op +force-fail +" + failed + " .*give up"),
        fail::toString);
    ProcedureInfo after = cluster.awaitFinished(failed);
    assertTrue(after.state() != ProcedureState.SUCCESS, after::toString);

    CliRun refused = run(token, "force-fail", "" + failed, "--reason", "again");
    assertEquals(ClientCommand.EXIT_REFUSED, refused.code(), refused::toString);
    assertTrue(refused.err().contains("409"), refused::toString);

    CliRun noReason = run(token, "retry-now", "" + failed);
    assertEquals(ConfigNodeCli.EXIT_USAGE, noReason.code(), noReason::toString);
    assertTrue(noReason.err().contains("--reason"), noReason::toString);
    CliRun notForFail = run(token, "force-fail", "" + failed, "--reason", "r", "--recursive");
    assertEquals(ConfigNodeCli.EXIT_USAGE, notForFail.code(), notForFail::toString);

    CliRun trail = run(token, "audit", "--proc", "" + failed, "--principal", "op");
    assertEquals(0, trail.code(), trail::toString);
    assertEquals(List.of("give up", "again"), reasons(Json.LENIENT.readTree(trail.out())));
    CliRun last = run(token, "audit", "--proc", "" + failed, "--limit", "1", "--format", "table");
    assertEquals(0, last.code(), last::toString);
    List<String> rows = List.of(last.out().split("\\R"));
    assertEquals(2, rows.size(), last::toString);
    assertTrue(
        rows.get(0).matches("INDEX +TIME +PRINCIPAL +ACTION +PROC +OUTCOME +REASON"),
        last::toString);
    assertTrue(
        rows.get(1).matches(".* op +force-fail +" + failed + " +refused: .*again"), last::toString);
    CliRun badLimit = run(token, "audit", "--limit", "0");
    assertEquals(ConfigNodeCli.EXIT_USAGE, badLimit.code(), badLimit::toString);
  }

  private static ConfigNodeServer otherFollower(ConfigNodeServer than) {
    ConfigNodeServer leader = cluster.leader();
    return cluster.nodes().stream().filter(n -> n != leader && n != than).findFirst().orElseThrow();
  }

  private static String abortPath(long id) {
    return "/api/procedures/" + id + "/abort";
  }

  @Test
  void anAbortWithAReasonIsInTheFollowersTrailWithWhoAndWhy() {
    long id = sleeping();
    ConfigNodeServer asked = cluster.follower();
    RawHttp.Reply r =
        as(Role.OPERATOR, asked).post(abortPath(id), "{\"reason\":\"wrong region picked\"}");
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    assertTrue(r.json().path("aborted").asBoolean(), r.body());
    assertEquals("abort", r.json().path("audit").path("action").asText(), r.body());
    ProcedureInfo done = cluster.awaitRolledBack(id);
    assertTrue(done.failure().contains("abort"), done.toString());

    ConfigNodeServer reader = otherFollower(asked);
    SimCluster.waiting()
        .until(() -> audit(reader, "procId=" + id).path(0).path("decided").asBoolean());
    JsonNode trail = audit(reader, "procId=" + id);
    assertEquals(1, trail.size(), trail.toString());
    JsonNode e = trail.get(0);
    assertEquals("abort", e.path("action").asText(), e.toString());
    assertEquals(TestTokens.name(Role.OPERATOR), e.path("principal").asText(), e.toString());
    assertEquals("wrong region picked", e.path("reason").asText(), e.toString());
    assertFalse(e.path("refused").asBoolean(), e.toString());
    assertTrue(e.path("timeMillis").asLong() > 0, e.toString());
  }

  @Test
  void anAbortWithoutABodyIsAnsweredAsBeforeAndNotAudited() {
    long id = sleeping();
    RawHttp op = as(Role.OPERATOR, cluster.follower());
    op.post(abortPath(id), "{\"reason\":\"  \"}").assertError(400, "invalid_request");
    op.post(abortPath(id), "{\"reason\":\"r\",\"recursive\":true}")
        .assertError(400, "invalid_request");
    RawHttp.Reply r = op.post(abortPath(id), null);
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    assertTrue(r.json().path("aborted").asBoolean(), r.body());
    assertFalse(r.json().has("audit"), r.body());
    cluster.awaitRolledBack(id);
    assertEquals(0, audit(cluster.leader(), "procId=" + id).size());
  }

  @Test
  void anAbortOfAFinishedProcedureIsNotAbortedAndTheRefusalIsAudited() {
    long id = cluster.submit("Noop");
    cluster.awaitSuccess(id);
    RawHttp.Reply r =
        as(Role.OPERATOR, cluster.leader()).post(abortPath(id), "{\"reason\":\"too late\"}");
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    assertFalse(r.json().path("aborted").asBoolean(), r.body());
    JsonNode e = r.json().path("audit");
    assertTrue(e.path("refused").asBoolean(), r.body());
    assertTrue(e.path("outcome").asText().contains("finished"), r.body());
    JsonNode trail = audit(cluster.follower(), "procId=" + id);
    assertEquals(1, trail.size(), trail.toString());
    assertTrue(trail.get(0).path("refused").asBoolean(), trail.toString());
  }

  @Test
  void aDryRunOnAFollowerAnswersThePlanAndChangesNothing() {
    long id = sleeping();
    RawHttp.Reply r =
        as(Role.OPERATOR, cluster.follower())
            .post(abortPath(id), "{\"reason\":\"look\",\"dryRun\":true}");
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    assertEquals("ABORT", r.json().path("action").asText(), r.body());
    assertEquals("FAILED", r.json().path("states").path(0).path("to").asText(), r.body());
    assertEquals(ProcedureState.WAITING_TIMEOUT, cluster.info(id).orElseThrow().state());
    assertEquals(0, audit(cluster.leader(), "procId=" + id).size());
    assertTrue(
        as(Role.OPERATOR, cluster.leader())
            .post(abortPath(id), null)
            .json()
            .path("aborted")
            .asBoolean());
  }

  @Test
  void theCliAbortsWithAReasonAndTheTrailShowsIt() throws Exception {
    Path token = dir.resolve("op.token");
    Files.writeString(token, TestTokens.TOKENS.get(Role.OPERATOR));
    long id = sleeping();
    CliRun aborted = run(token, "abort", Long.toString(id), "--reason", "cli abort");
    assertEquals(0, aborted.code(), aborted::toString);
    JsonNode answer = Json.LENIENT.readTree(aborted.out());
    assertTrue(answer.path("aborted").asBoolean(), aborted::toString);
    assertEquals("op", answer.path("audit").path("principal").asText(), aborted::toString);
    assertEquals("cli abort", answer.path("audit").path("reason").asText(), aborted::toString);
    cluster.awaitRolledBack(id);
    CliRun again = run(token, "abort", Long.toString(id), "--reason", "again");
    assertEquals(ClientCommand.EXIT_REFUSED, again.code(), again::toString);
    CliRun blank = run(token, "abort", Long.toString(id), "--reason", " ");
    assertEquals(2, blank.code(), blank::toString);
    CliRun trail = run(token, "audit", "--proc", Long.toString(id));
    assertEquals(0, trail.code(), trail::toString);
    JsonNode entries = Json.LENIENT.readTree(trail.out());
    assertEquals(2, entries.size(), trail::toString);
    assertEquals("cli abort", entries.get(0).path("reason").asText(), trail::toString);
  }

  private static CliRun run(Path token, String... args) {
    return CliRun.against(cluster, token, args);
  }
}
