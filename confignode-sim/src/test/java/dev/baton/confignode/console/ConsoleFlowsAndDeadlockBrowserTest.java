package dev.baton.confignode.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.auth.Role;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.TestTokens;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.Select;

/**
 * The console's overview, state timeline, flows and a real deadlock, in a real headless Chromium,
 * on a 3-node cluster that requires tokens and does not break deadlocks ({@code --break-deadlocks
 * false}): the overview on a follower shows the leader's counts by state and type and every
 * member's role, term and log positions as {@code GET /api/overview} answers them; a procedure's
 * page shows its state timeline from the Raft log (term, attempt, error of each record); the flows
 * page lists a flow whose node is suspended, a dry run from the page changes nothing and a resume
 * with a reason runs the flow on and lands in the audit trail; two {@code LockPair}s in reversed
 * order deadlock, the cycle stays, and the locks page flags it. Screenshots go under {@code
 * target/console-screenshots/}. The deadlock runs last: it leaves its procedures stuck.
 */
@Timeout(240)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleFlowsAndDeadlockBrowserTest {
  private static final String OPERATOR = TestTokens.TOKENS.get(Role.OPERATOR);

  /** Long enough for both pairs to hold their first lock before either asks for its second. */
  private static final int PAUSE_MILLIS = 1_500;

  private static final int NOOP_STEPS = 3;

  private static final String SUSPENDING_FLOW =
      """
      {"nodes":[{"name":"s","type":"Noop"},
                {"name":"bad","type":"DeleteDatabase","args":{"name":"nosuchdb"}},
                {"name":"e","type":"Noop"}],
       "edges":[{"parent":"s","child":"bad"},{"parent":"bad","child":"e"}]}
      """;

  @TempDir static Path dir;

  private static SimCluster cluster;
  private static ConsoleBrowser console;

  @BeforeAll
  static void start() throws IOException {
    cluster = SimCluster.startWithTokens(dir, 3, 0, false);
    console = ConsoleBrowser.start();
  }

  @AfterAll
  static void stop() throws IOException {
    if (console != null) {
      console.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static RawHttp operator() {
    return TestTokens.as(Role.OPERATOR, cluster.leader());
  }

  private static JsonNode get(String path) {
    RawHttp.Reply r = TestTokens.as(Role.READER, cluster.follower()).get(path);
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    return r.json();
  }

  @Test
  @Order(1)
  void theOverviewOnAFollowerShowsTheLeadersCountsAndEveryMember() throws Exception {
    long noop = cluster.submit("Noop", "steps", NOOP_STEPS);
    cluster.awaitSuccess(noop);
    console.open(cluster.follower(), "overview", OPERATOR);
    console.waiting().until(d -> console.texts("#ov-nodes tbody tr").size() == 3);
    JsonNode overview = get("/api/overview");
    String noops = "#ov-types tr[data-type='Noop'] td";
    console
        .waiting()
        .until(
            d ->
                console
                    .texts(noops)
                    .equals(List.of(overview.path("byType").path("Noop").asText())));
    assertEquals(
        List.of(overview.path("byState").path("SUCCESS").asText()),
        console.texts("#ov-states tr[data-state='SUCCESS'] td"));
    assertEquals(overview.path("live").asText(), console.text("ov-live"));
    assertEquals(
        overview.path("executor").path("workers").asText() + " / ",
        console.text("ov-exec").replaceAll("\\d+$", ""));
    List<String> roles = console.texts("#ov-nodes td.role");
    assertEquals(1, roles.stream().filter("LEADER"::equals).count(), roles.toString());
    String term = overview.path("term").asText();
    assertEquals(List.of(term, term, term), console.texts("#ov-nodes td.term"));
    for (String commit : console.texts("#ov-nodes td.commit")) {
      assertTrue(Long.parseLong(commit) > 0, commit);
    }
    String leaderRow = "#ov-nodes tr[data-node='" + overview.path("nodeId").asText() + "']";
    assertTrue(
        Long.parseLong(console.texts(leaderRow + " td.applied").get(0)) > 0,
        console.texts(leaderRow + " td").toString());
    console.screenshot("overview");
  }

  @Test
  @Order(2)
  void aProceduresPageShowsItsStateTimelineFromTheLog() throws Exception {
    long noop = cluster.submit("Noop", "steps", NOOP_STEPS);
    cluster.awaitSuccess(noop);
    long failing = cluster.submit("DeleteDatabase", "name", "nosuchdb");
    cluster.awaitFinished(failing);

    console.open(cluster.follower(), "procedure/" + noop, OPERATOR);
    JsonNode history = get("/api/procedures/" + noop + "/history");
    int records = history.path("steps").size();
    assertTrue(records >= NOOP_STEPS, history.toString());
    console.waiting().until(d -> console.texts("#p-timeline tbody tr").size() == records);
    List<String> states = console.texts("#p-timeline td.state");
    assertEquals("SUCCESS", states.get(states.size() - 1), states.toString());
    String term = get("/api/overview").path("term").asText();
    assertTrue(console.texts("#p-timeline td.term").stream().allMatch(term::equals));
    List<String> steps = new ArrayList<>();
    history.path("steps").forEach(s -> steps.add(s.path("step").asText()));
    assertEquals(steps, console.texts("#p-timeline td.step"));
    console.screenshot("timeline");

    console.open(cluster.follower(), "procedure/" + failing, OPERATOR);
    console
        .waiting()
        .until(
            d ->
                console.texts("#p-timeline td.error").stream()
                    .anyMatch(e -> e.contains("nosuchdb")));
  }

  @Test
  @Order(3)
  void aSuspendedFlowNodeIsResumedFromTheFlowsPageAfterADryRun() throws Exception {
    RawHttp.Reply submitted = operator().post("/api/flows", SUSPENDING_FLOW);
    assertEquals(HttpURLConnection.HTTP_OK, submitted.status(), submitted.body());
    long id = submitted.json().path("flowId").asLong();
    SimCluster.waiting()
        .until(() -> get("/api/flows/" + id).path("state").asText("").equals("PENDING"));

    console.open(cluster.follower(), "flows", OPERATOR);
    console
        .waiting()
        .until(d -> !console.texts("#flow-table tr[data-flow-id='" + id + "']").isEmpty());
    console
        .driver()
        .findElement(By.cssSelector("#flow-table tr[data-flow-id='" + id + "']"))
        .click();
    String bad = "#fl-nodes tr[data-node='bad'] td.node-state";
    console.waiting().until(d -> console.texts(bad).equals(List.of("PENDING")));
    assertEquals(List.of("SUCCESS"), console.texts("#fl-nodes tr[data-node='s'] td.node-state"));

    new Select(console.driver().findElement(By.id("fl-action"))).selectByValue("MARK_SUCCEEDED");
    String reason = "the database never existed";
    console.driver().findElement(By.id("fl-reason")).sendKeys(reason);
    console.driver().findElement(By.id("fl-dry-run")).click();
    console.waiting().until(d -> !console.text("fl-result").isEmpty());
    assertTrue(
        console.text("fl-result").startsWith("dry run, nothing changed: bad PENDING → SUCCESS"),
        console.text("fl-result"));
    assertEquals("PENDING", get("/api/flows/" + id).path("state").asText());
    assertEquals(0, get("/api/audit?procId=" + id).size());
    console.screenshot("flow-dry-run");

    console.driver().findElement(By.id("fl-do-resume")).click();
    console.waiting().until(d -> console.text("fl-result").startsWith("resumed"));
    console.waiting().until(d -> console.texts(bad).equals(List.of("SUCCESS")));
    console.waiting().until(d -> console.text("fl-state").equals("FINISH"));
    JsonNode trail = get("/api/audit?procId=" + id);
    assertEquals(1, trail.size(), trail.toString());
    assertEquals("resume", trail.get(0).path("action").asText());
    assertEquals(TestTokens.name(Role.OPERATOR), trail.get(0).path("principal").asText());
    assertEquals(reason, trail.get(0).path("reason").asText());
    console.screenshot("flow-resumed");
  }

  @Test
  @Order(4)
  void aDeadlockOfTwoLockPairsStaysAndTheLocksPageFlagsIt() throws Exception {
    long ab = cluster.submit("LockPair", "first", "a", "second", "b", "pauseMillis", PAUSE_MILLIS);
    long ba = cluster.submit("LockPair", "first", "b", "second", "a", "pauseMillis", PAUSE_MILLIS);
    SimCluster.waiting().until(() -> get("/api/locks").path("cycles").size() == 1);

    console.open(cluster.follower(), "locks", OPERATOR);
    console
        .waiting()
        .until(
            d ->
                console.texts("#l-cycles li.cycle").stream()
                    .anyMatch(t -> t.startsWith("deadlock of 4 procedures")));
    assertTrue(console.text("l-deadlocks").endsWith(": 1"), console.text("l-deadlocks"));
    for (String lock : List.of("a", "b")) {
      String row = "#lock-table tr[data-resource='node:demo-lock:" + lock + "']";
      assertEquals(1, console.texts(row + " td.holders a.badge.cycle").size(), lock);
      assertEquals(1, console.texts(row + " td.waiters a.badge.cycle").size(), lock);
    }
    console.screenshot("deadlock");

    JsonNode locks = get("/api/locks");
    assertEquals(1, locks.path("cycles").size(), "not broken: " + locks);
    JsonNode victim = locks.path("cycles").path(0).path("victim");
    assertTrue(victim.isMissingNode() || victim.isNull(), locks.toString());
    assertTrue(
        !cluster.info(ab).orElseThrow().finished() && !cluster.info(ba).orElseThrow().finished());
  }
}
