package dev.baton.confignode.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.http.Json;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The bench's report of failed operations: per phase in the table and in the JSON line. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class BenchResultTest {
  private static final Percentiles SOME = new Percentiles(1, 2, 3);

  private static BenchResult withFailures(List<PhaseFailures> failures, int failed) {
    return new BenchResult(
        new Bench.Settings(3, 100, 3, 8, false),
        10,
        9,
        30,
        5,
        SOME,
        SOME,
        200,
        SOME,
        SOME,
        SOME,
        new CpuPerProcedure(1, 2, List.of(3.0, 4.0)),
        0,
        failed,
        failures);
  }

  @Test
  void eachPhasesFailuresAndTheirMostCommonErrorsAreReported() throws Exception {
    BenchResult r =
        withFailures(
            List.of(
                new PhaseFailures("procedure warm-up", 0, List.of()),
                new PhaseFailures(
                    "procedures",
                    7,
                    List.of(
                        new PhaseFailures.ErrorCount("IOException: connection refused", 5),
                        new PhaseFailures.ErrorCount("ended ROLLEDBACK", 2))),
                new PhaseFailures(
                    "raw Raft baseline",
                    1,
                    List.of(new PhaseFailures.ErrorCount("TimeoutIOException: timed out", 1)))),
            7);

    assertEquals(8, r.failedOperations());
    String table = r.table();
    assertTrue(table.contains("rates and latencies of the successful operations"), table);
    assertTrue(table.matches("(?s).*\n  procedure warm-up +0\n.*"), table);
    assertTrue(
        table.contains(
            "  procedures                                7\n"
                + "    5 × IOException: connection refused\n"
                + "    2 × ended ROLLEDBACK\n"),
        table);
    assertTrue(table.contains("    1 × TimeoutIOException: timed out\n"), table);

    JsonNode json = Json.LENIENT.readTree(r.jsonLine());
    assertEquals(7, json.path("failed").asInt(), json::toString);
    assertEquals(8, json.path("failedOperations").asInt(), json::toString);
    JsonNode procedures = json.path("failures").get(1);
    assertEquals("procedures", procedures.path("phase").asText(), json::toString);
    assertEquals(7, procedures.path("count").asInt(), json::toString);
    assertEquals(
        "IOException: connection refused",
        procedures.path("errors").get(0).path("message").asText(),
        json::toString);
    assertEquals(5, procedures.path("errors").get(0).path("count").asInt(), json::toString);
    assertEquals(0, json.path("failures").get(0).path("errors").size(), json::toString);
  }

  @Test
  void aCleanRunReportsNoFailedOperation() throws Exception {
    BenchResult r = withFailures(List.of(new PhaseFailures("procedures", 0, List.of())), 0);

    assertEquals(0, r.failedOperations());
    JsonNode json = Json.LENIENT.readTree(r.jsonLine());
    assertEquals(0, json.path("failedOperations").asInt(-1), json::toString);
    assertEquals(1, json.path("failures").size(), json::toString);
  }
}
