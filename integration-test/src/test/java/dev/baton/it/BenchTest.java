package dev.baton.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cli.ConfigNodeCli;
import dev.baton.confignode.http.Json;
import java.io.ByteArrayOutputStream;
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
 * procedures; its report has the table and a JSON line with positive figures, and its directory is
 * gone afterwards. Its flags are checked in confignode-sim's {@code BenchCommandTest}.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class BenchTest {
  private static final Pattern DIR = Pattern.compile("ConfigNodes in (\\S+)");

  @Test
  void aSmallRunReportsPositiveFiguresAndCleansUp() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        ConfigNodeCli.run(
            new String[] {
              "bench", "--nodes", "3", "--procedures", "20", "--steps", "2", "--workers", "2"
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String report = out.toString(StandardCharsets.UTF_8);
    String run = "exit " + code + "\nstdout:\n" + report + "\nstderr:\n" + err;
    assertEquals(0, code, run);
    for (String row :
        List.of("procedures/s", "store batches/s", "log entries/s", "latency p99.9 (ms)")) {
      assertTrue(report.contains(row), () -> row + " in " + run);
    }
    String jsonLine =
        report.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElseThrow();
    JsonNode json = Json.LENIENT.readTree(jsonLine);
    assertEquals(20, json.path("procedures").asInt(), jsonLine);
    assertEquals(2, json.path("steps").asInt(), jsonLine);
    assertEquals(0, json.path("failed").asInt(-1), jsonLine);
    for (String field :
        List.of(
            "wallSeconds", "proceduresPerSecond", "storeBatchesPerSecond", "logEntriesPerSecond")) {
      assertTrue(json.path(field).asDouble() > 0, () -> field + " in " + jsonLine);
    }
    JsonNode latency = json.path("latencyMillis");
    long p50 = latency.path("p50").asLong();
    long p99 = latency.path("p99").asLong();
    long p999 = latency.path("p999").asLong();
    assertTrue(p50 > 0 && p50 <= p99 && p99 <= p999, jsonLine);
    // a Noop of 2 steps is at least 2 store writes, and each write is a batch
    assertTrue(
        json.path("storeBatchesPerSecond").asDouble()
            >= json.path("proceduresPerSecond").asDouble(),
        jsonLine);

    Matcher m = DIR.matcher(report);
    assertTrue(m.find(), run);
    assertFalse(Files.exists(Path.of(m.group(1))), "temp dir removed: " + m.group(1));
  }
}
