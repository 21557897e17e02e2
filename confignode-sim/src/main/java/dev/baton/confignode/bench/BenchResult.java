package dev.baton.confignode.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.baton.confignode.http.Json;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What one {@link Bench} run measured, all in one run on one machine.
 *
 * @param settings what ran
 * @param wallSeconds from the first submission to the last procedure done
 * @param proceduresPerSecond procedures done per second of wall time
 * @param storeBatchesPerSecond procedure-store write batches the leader applied per second (from
 *     its {@code baton_applied_store_batches_total})
 * @param logEntriesPerSecond Raft log entries carrying store batches per second (group commit:
 *     several batches per entry; {@code baton_applied_write_entries_total})
 * @param p50Millis median submit-to-done latency: from the client's submit call to the procedure's
 *     last store update on the leader (both clocks are this machine's)
 * @param p99Millis 99th percentile of that latency
 * @param p999Millis 99.9th percentile of that latency
 * @param failed procedures that did not end in SUCCESS
 */
public record BenchResult(
    Bench.Settings settings,
    double wallSeconds,
    double proceduresPerSecond,
    double storeBatchesPerSecond,
    double logEntriesPerSecond,
    long p50Millis,
    long p99Millis,
    long p999Millis,
    int failed) {

  /** A table for people. */
  public String table() {
    StringBuilder out = new StringBuilder();
    out.append("=== Baton bench ===\n");
    out.append(
        String.format(
            Locale.ROOT,
            "cluster: %d ConfigNode processes; %d Noop procedures of %d steps from %d clients%n",
            settings.nodes(),
            settings.procedures(),
            settings.steps(),
            settings.workers()));
    row(out, "wall time (s)", String.format(Locale.ROOT, "%.2f", wallSeconds));
    row(out, "procedures/s", String.format(Locale.ROOT, "%.1f", proceduresPerSecond));
    row(out, "store batches/s", String.format(Locale.ROOT, "%.1f", storeBatchesPerSecond));
    row(out, "log entries/s", String.format(Locale.ROOT, "%.1f", logEntriesPerSecond));
    row(out, "latency p50 (ms)", Long.toString(p50Millis));
    row(out, "latency p99 (ms)", Long.toString(p99Millis));
    row(out, "latency p99.9 (ms)", Long.toString(p999Millis));
    row(out, "not successful", Integer.toString(failed));
    return out.toString();
  }

  private static void row(StringBuilder out, String name, String value) {
    out.append(String.format(Locale.ROOT, "  %-20s %12s%n", name, value));
  }

  /** One JSON object on one line, for scripts. */
  public String jsonLine() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("bench", "confignode");
    m.put("nodes", settings.nodes());
    m.put("procedures", settings.procedures());
    m.put("steps", settings.steps());
    m.put("workers", settings.workers());
    m.put("wallSeconds", round(wallSeconds));
    m.put("proceduresPerSecond", round(proceduresPerSecond));
    m.put("storeBatchesPerSecond", round(storeBatchesPerSecond));
    m.put("logEntriesPerSecond", round(logEntriesPerSecond));
    m.put("latencyMillis", Map.of("p50", p50Millis, "p99", p99Millis, "p999", p999Millis));
    m.put("failed", failed);
    try {
      return Json.LENIENT.writeValueAsString(m);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("bench result not serializable", e);
    }
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
