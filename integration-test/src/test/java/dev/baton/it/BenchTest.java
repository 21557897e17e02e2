package dev.baton.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cli.ConfigNodeCli;
import dev.baton.confignode.http.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code bench} command, run small through the CLI's entry point: 3 ConfigNode processes and 20
 * procedures (submitted then long polled, or by default submitted and awaited in one request), the
 * raw Raft baseline and the reads; its report has the table and a JSON line with positive figures
 * and ratios, and its directory is gone afterwards. Its flags are checked in confignode-sim's
 * {@code BenchCommandTest}.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class BenchTest {
  private static final Pattern DIR = Pattern.compile("ConfigNodes in (\\S+)");

  /** A bench command's exit code, output, and all of it as one text for failure messages. */
  private record BenchRun(int code, String report, String text) {
    /** The JSON line of the report. */
    JsonNode json() throws IOException {
      return Json.LENIENT.readTree(jsonLine());
    }

    String jsonLine() {
      return report.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElseThrow();
    }
  }

  private static BenchRun bench(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        ConfigNodeCli.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String report = out.toString(StandardCharsets.UTF_8);
    return new BenchRun(
        code, report, "exit " + code + "\nstdout:\n" + report + "\nstderr:\n" + err);
  }

  @Test
  void aSmallRunReportsPositiveFiguresAndCleansUp() throws Exception {
    BenchRun r =
        bench(
            "bench",
            "--nodes",
            "3",
            "--procedures",
            "20",
            "--steps",
            "2",
            "--clients",
            "2",
            "--warmup-seconds",
            "2",
            "--submit-then-wait");
    String report = r.report();
    String run = r.text();
    assertEquals(0, r.code(), run);
    for (String row :
        List.of(
            "procedures/s",
            "store batches/s",
            "log entries/s",
            "latency p99.9 (ms)",
            "commits/s",
            "follower p50 (ms)",
            "CPU per procedure (ms)",
            "latency p50 / commit p50",
            "failed operations")) {
      assertTrue(report.contains(row), () -> row + " in " + run);
    }
    String jsonLine = r.jsonLine();
    JsonNode json = r.json();
    assertEquals(20, json.path("procedures").asInt(), jsonLine);
    assertEquals(2, json.path("steps").asInt(), jsonLine);
    assertEquals(0, json.path("failed").asInt(-1), jsonLine);
    assertTrue(json.path("submitThenWait").asBoolean(), jsonLine);
    // every phase run through the load reports its failures, none here
    assertEquals(0, json.path("failedOperations").asInt(-1), jsonLine);
    JsonNode failures = json.path("failures");
    assertEquals(5, failures.size(), jsonLine);
    failures.forEach(f -> assertEquals(0, f.path("count").asInt(-1), jsonLine));
    for (String field :
        List.of(
            "wallSeconds",
            "proceduresPerSecond",
            "storeBatchesPerSecond",
            "logEntriesPerSecond",
            "rawCommitsPerSecond")) {
      assertTrue(json.path(field).asDouble() > 0, () -> field + " in " + jsonLine);
    }
    for (String series :
        List.of(
            "latencyMillis",
            "submitMillis",
            "rawCommitMillis",
            "leaderReadMillis",
            "followerReadMillis")) {
      JsonNode p = json.path(series);
      double p50 = p.path("p50").asDouble();
      double p99 = p.path("p99").asDouble();
      double p999 = p.path("p999").asDouble();
      assertTrue(p50 > 0 && p50 <= p99 && p99 <= p999, () -> series + " in " + jsonLine);
    }
    // a procedure is submitted, then runs: its answer comes before it finished
    assertTrue(
        json.path("submitMillis").path("p50").asDouble()
            <= json.path("latencyMillis").path("p50").asDouble(),
        jsonLine);
    for (String ratio :
        List.of("latencyP50ToCommitP50", "proceduresToCommits", "followerToLeaderReadP50")) {
      assertTrue(json.path("ratios").path(ratio).asDouble() > 0, () -> ratio + " in " + jsonLine);
    }
    // every process works for every procedure: the client sends it, the nodes replicate it
    JsonNode cpu = json.path("cpuMillisPerProcedure");
    assertTrue(cpu.path("bench").asDouble() > 0, jsonLine);
    assertTrue(cpu.path("leader").asDouble() > 0, jsonLine);
    assertEquals(2, cpu.path("followers").size(), jsonLine);
    cpu.path("followers").forEach(f -> assertTrue(f.asDouble() > 0, jsonLine));
    // a Noop of 2 steps is at least 2 store writes, and each write is a batch
    assertTrue(
        json.path("storeBatchesPerSecond").asDouble()
            >= json.path("proceduresPerSecond").asDouble(),
        jsonLine);

    // the procedure warm-up ran right before the measured procedures, on the connections they use
    assertEquals(0, json.path("connectionsOpened").asLong(-1), jsonLine);

    Matcher m = DIR.matcher(report);
    assertTrue(m.find(), run);
    assertFalse(Files.exists(Path.of(m.group(1))), "temp dir removed: " + m.group(1));
  }

  @Test
  void anOpenLoopWarmsUpAtItsRateAndCountsItsConnections() throws Exception {
    BenchRun r =
        bench(
            "bench", "--procedures", "20", "--steps", "2", "--rate", "20", "--warmup-seconds", "2");
    String report = r.report();
    String run = r.text();
    assertEquals(0, r.code(), run);
    assertTrue(report.contains("open loop at 20.0/s"), run);
    // 2 s: a ramp to 20/s in the first (10), 20/s in the second (20)
    assertTrue(report.contains("[bench] procedure warm-up: 30 procedures"), run);
    assertTrue(report.contains("connections opened"), run);
    String jsonLine = r.jsonLine();
    JsonNode json = r.json();
    assertEquals(20, json.path("procedures").asInt(), jsonLine);
    assertEquals(20.0, json.path("rate").asDouble(), jsonLine);
    assertEquals(0, json.path("failed").asInt(-1), jsonLine);
    // at most one connection per procedure in flight: an open loop never opens more
    long opened = json.path("connectionsOpened").asLong(-1);
    assertTrue(opened >= 0 && opened <= 20, jsonLine);
    // by default one request per procedure submits and awaits it: no submission answer of its own
    assertFalse(json.path("submitThenWait").asBoolean(true), jsonLine);
    assertTrue(json.path("submitMillis").isMissingNode(), jsonLine);
    assertFalse(report.contains("submit answer p50"), run);
    JsonNode latency = json.path("latencyMillis");
    assertTrue(latency.path("p50").asDouble() > 0, jsonLine);
    assertTrue(latency.path("p99").asDouble() <= latency.path("p999").asDouble(), jsonLine);
  }
}
