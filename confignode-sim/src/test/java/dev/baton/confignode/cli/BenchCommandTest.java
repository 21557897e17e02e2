package dev.baton.confignode.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.http.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code bench} command: a tiny real run (3 ConfigNode processes, 20 procedures) whose report
 * has the table and the JSON line with positive figures, and whose directory is gone afterwards;
 * and its usage errors.
 */
@Timeout(300)
class BenchCommandTest {
  private static final Pattern DIR = Pattern.compile("ConfigNodes in (\\S+)");

  @Test
  @Timeout(300)
  void aSmallRunReportsPositiveFiguresAndCleansUp() throws Exception {
    CliRun r =
        CliRun.main(
            "bench", "--nodes", "3", "--procedures", "20", "--steps", "2", "--workers", "2");
    assertEquals(0, r.code(), r::toString);
    for (String row :
        List.of("procedures/s", "store batches/s", "log entries/s", "latency p99.9 (ms)")) {
      assertTrue(r.out().contains(row), () -> row + " in " + r);
    }
    String jsonLine =
        r.out().lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElseThrow();
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

    Matcher m = DIR.matcher(r.out());
    assertTrue(m.find(), r::toString);
    assertFalse(Files.exists(Path.of(m.group(1))), "temp dir removed: " + m.group(1));
  }

  @ParameterizedTest(name = "{0}")
  @Timeout(10)
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          no procedures  | bench --procedures 0      | flag --procedures must be an integer in 1..1000000
          steps a word   | bench --steps many        | flag --steps must be an integer in 1..1000
          no workers     | bench --workers 0         | flag --workers must be an integer in 1..256
          too many nodes | bench --nodes 8           | flag --nodes must be an integer in 1..7
          unknown flag   | bench --rate 5            | unknown flag '--rate'
          """)
  void usageErrorsExit2BeforeStartingAnything(String name, String line, String want) {
    CliRun r = CliRun.main(line.split(" "));
    assertEquals(ConfigNodeCli.EXIT_USAGE, r.code(), r::toString);
    assertTrue(r.err().contains(want), r::toString);
    assertTrue(r.err().contains("usage: confignode-sim bench"), r::toString);
    assertEquals("", r.out(), r::toString);
  }
}
