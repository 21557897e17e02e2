package dev.baton.confignode.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.PromText;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import dev.baton.procedure.ProcedureState;
import java.io.File;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} of a running in-process ConfigNode after a small workload (procedures that
 * succeed, one aborted and rolled back): Prometheus' own {@code promtool check metrics} accepts it,
 * every name follows the conventions, and the figures count what happened.
 */
@Timeout(180)
class MetricsScrapeTest {
  /** Where the test looks for promtool besides the PATH: {@code -Dpromtool=/path/to/promtool}. */
  static final String PROMTOOL_PROPERTY = "promtool";

  static final long PROMTOOL_WAIT_SECONDS = 60;

  /** A sleep that ends only by abort. */
  static final long LONG_SLEEP_MILLIS = 600_000;

  static final int NOOPS = 5;

  private static final Pattern SNAKE_CASE = Pattern.compile("baton_[a-z0-9]+(_[a-z0-9]+)*");

  /** Label names allowed: small fixed sets, never an id ({@code le} is the histogram's own). */
  private static final Set<String> LABELS =
      Set.of("type", "outcome", "state", "reason", "role", "action", "le");

  /** Words that mean a duration: such a metric is in seconds. */
  private static final List<String> DURATION_WORDS =
      List.of("duration", "latency", "age", "wait_duration", "recovery");

  @RegisterExtension static final SimClusterExtension NODE = new SimClusterExtension(1, 0);

  private static String scrape;

  @BeforeAll
  static void runWorkloadAndScrape() throws Exception {
    SimCluster cluster = NODE.cluster();
    for (int i = 0; i < NOOPS; i++) {
      cluster.awaitSuccess(cluster.submit("Noop"));
    }
    long sleep = cluster.submit("Sleep", "millis", LONG_SLEEP_MILLIS);
    ConfigNodeServer leader = cluster.leader();
    SimCluster.waiting()
        .until(() -> leader.node().getInfo(sleep).get().map(i -> i.procId() > 0).orElse(false));
    RawHttp.Reply abort = http().post("/api/procedures/" + sleep + "/abort", "");
    assertEquals(HttpURLConnection.HTTP_OK, abort.status(), abort.body());
    assertEquals(ProcedureState.ROLLEDBACK, cluster.awaitRolledBack(sleep).state());
    // the finish is counted once the final record is durable: wait until the scrape shows it
    SimCluster.waiting()
        .until(
            () ->
                PromText.parse(scrape())
                        .value(
                            "baton_procedures_finished_total",
                            "type",
                            "Sleep",
                            "outcome",
                            "rolledback")
                        .orElse(0.0)
                    == 1.0);
    scrape = scrape();
  }

  private static RawHttp http() {
    return new RawHttp(SimCluster.http(NODE.cluster().leader()));
  }

  private static String scrape() {
    RawHttp.Reply r = http().get("/metrics");
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    assertTrue(r.contentType().startsWith("text/plain; version=0.0.4"), r.contentType());
    return r.body();
  }

  @Test
  void promtoolAcceptsTheScrape(@TempDir Path dir) throws Exception {
    Path promtool =
        promtool()
            .orElseThrow(
                () ->
                    new AssertionError(
                        "promtool is not installed: it is not on the PATH and -D"
                            + PROMTOOL_PROPERTY
                            + " is not set. Install it with .ci/install-promtool (Debian's"
                            + " prometheus package brings it); this test does not skip."));
    Path file = dir.resolve("scrape.prom");
    Files.writeString(file, scrape, StandardCharsets.UTF_8);
    Path output = dir.resolve("promtool.out");
    Process p =
        new ProcessBuilder(promtool.toString(), "check", "metrics")
            .redirectInput(file.toFile())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    assertTrue(p.waitFor(PROMTOOL_WAIT_SECONDS, TimeUnit.SECONDS), "promtool did not finish");
    String said = Files.readString(output);
    assertEquals(0, p.exitValue(), () -> "promtool check metrics: " + said + "\n" + scrape);
    assertTrue(said.isBlank(), () -> "promtool found problems: " + said + "\n" + scrape);
  }

  /** promtool from {@code -Dpromtool}, else the first on the PATH. */
  static Optional<Path> promtool() {
    String set = System.getProperty(PROMTOOL_PROPERTY);
    if (set != null && !set.isBlank()) {
      return Optional.of(Path.of(set)).filter(Files::isExecutable);
    }
    String path = System.getenv().getOrDefault("PATH", "");
    for (String d : path.split(File.pathSeparator)) {
      if (!d.isEmpty()) {
        Path candidate = Path.of(d, "promtool");
        if (Files.isExecutable(candidate)) {
          return Optional.of(candidate);
        }
      }
    }
    return Optional.empty();
  }

  @Test
  void everyNameFollowsThePrometheusConventions() {
    PromText text = PromText.parse(scrape);
    assertFalse(text.families().isEmpty(), scrape);
    List<String> problems = new ArrayList<>();
    for (PromText.Family f : text.families().values()) {
      String name = f.name();
      if (!SNAKE_CASE.matcher(name).matches()) {
        problems.add(name + ": not baton_ and lower snake case");
      }
      if (f.help().isBlank()) {
        problems.add(name + ": no HELP text");
      }
      boolean counter = f.type().equals("counter");
      if (counter != name.endsWith("_total")) {
        problems.add(name + ": a " + f.type() + (counter ? " without" : " with") + " _total");
      }
      if (name.contains("milli") || name.contains("micro") || name.contains("nano")) {
        problems.add(name + ": not in base units");
      }
      boolean duration = DURATION_WORDS.stream().anyMatch(name::contains);
      if (duration && !name.endsWith("_seconds")) {
        problems.add(name + ": a duration not in _seconds");
      }
      if (f.type().equals("histogram") && !name.endsWith("_seconds")) {
        problems.add(name + ": a histogram of something other than seconds");
      }
      for (PromText.Sample s : f.samples()) {
        for (Map.Entry<String, String> l : s.labels().entrySet()) {
          if (!LABELS.contains(l.getKey())) {
            problems.add(name + ": label " + l.getKey() + " is not one of " + LABELS);
          }
        }
      }
    }
    assertTrue(problems.isEmpty(), () -> String.join("\n", problems) + "\n" + scrape);
  }

  @Test
  void theFiguresCountWhatHappened() {
    PromText t = PromText.parse(scrape);
    assertTrue(t.get("baton_procedures_submitted_total", "type", "Noop") >= NOOPS, scrape);
    assertTrue(
        t.get("baton_procedures_finished_total", "type", "Noop", "outcome", "success") >= NOOPS,
        scrape);
    // a duration histogram for every outcome, not only successes
    assertEquals(
        1.0,
        t.get("baton_procedure_duration_seconds_count", "type", "Sleep", "outcome", "rolledback"));
    assertTrue(
        t.get("baton_procedure_duration_seconds_sum", "type", "Sleep", "outcome", "rolledback")
            > 0);
    assertTrue(t.get("baton_procedure_step_duration_seconds_count", "type", "Noop") >= NOOPS);
    assertTrue(t.get("baton_store_write_duration_seconds_count") > 0, scrape);
    assertEquals(0.0, t.get("baton_store_write_failures_total"));
    assertEquals(0.0, t.get("baton_lock_deadlocks_total"), "registered at 0 for the detector");
    assertEquals(1.0, t.get("baton_operator_actions_total", "action", "abort", "outcome", "done"));
    assertEquals(0.0, t.get("baton_operator_actions_total", "action", "resume", "outcome", "done"));
    assertEquals(1.0, t.get("baton_raft_role", "role", "leader_running"));
    assertEquals(0.0, t.get("baton_raft_role", "role", "follower"));
    assertEquals(1.0, t.get("baton_raft_leader"));
    assertEquals(1.0, t.get("baton_executor_running"));
    assertTrue(t.get("baton_raft_term") >= 1);
    assertTrue(t.get("baton_raft_commit_index") >= t.get("baton_raft_applied_index") - 1, scrape);
    assertTrue(t.get("baton_raft_applied_index") > 0);
    assertEquals(0.0, t.get("baton_rejected_stale_writes_total"));
    for (String state : List.of("runnable", "waiting", "waiting_timeout", "failed")) {
      assertEquals(0.0, t.get("baton_procedures_live", "state", state), state + "\n" + scrape);
    }
    for (String reason : List.of("lock", "limit", "backoff", "children", "suspended", "timer")) {
      assertEquals(0.0, t.get("baton_procedures_blocked", "reason", reason), reason);
    }
    assertTrue(t.get("baton_executor_last_recovery_seconds") >= 0);
  }
}
