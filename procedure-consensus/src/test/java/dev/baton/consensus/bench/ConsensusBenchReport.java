package dev.baton.consensus.bench;

import java.util.Locale;
import java.util.Map;

/** The benchmark's table and JSON line, with each figure against its target. */
final class ConsensusBenchReport {
  static final double TARGET_UPDATE_RATIO = 3.0;
  static final double TARGET_PROCS_PER_SECOND = 2000;
  static final double TARGET_P99_MS = 50;
  static final double TARGET_FAILOVER_MS = 1000;
  static final double TARGET_REBUILD_MS = 500;

  private ConsensusBenchReport() {}

  static void print(Map<String, Object> results) {
    double raw = value(results, "rawRatisEntriesPerSecond");
    System.out.println();
    System.out.println(
        "Baton procedure-consensus benchmark (3 nodes in one JVM, gRPC on loopback)");
    row("raw Ratis entries/s (async client, window 64)", raw, "baseline");
    checked(
        "3-state no-op procedures/s",
        results,
        "proceduresPerSecond",
        ">=",
        TARGET_PROCS_PER_SECOND);
    row("store updates/s", value(results, "storeUpdatesPerSecond"), "");
    row("store updates per log entry", value(results, "updatesPerLogEntry"), "");
    checked("store updates / raw entries", results, "updatesToRawRatio", ">=", TARGET_UPDATE_RATIO);
    row("latency p50 ms at half peak (from schedule)", value(results, "latencyP50Ms"), "");
    checked("latency p99 ms at half peak", results, "latencyP99Ms", "<=", TARGET_P99_MS);
    row("latency p99.9 ms at half peak", value(results, "latencyP999Ms"), "");
    row(
        "  p99 ms timed from the submit call instead",
        value(results, "latencyFromCallP99Ms"),
        "hides waits of submissions a pause delayed");
    row("failover kill->elected median ms", value(results, "failoverElectedMedianMs"), "");
    row("failover kill->LEADER_RUNNING median ms", value(results, "failoverRunningMedianMs"), "");
    checked(
        "failover kill->probe procedure done median ms",
        results,
        "failoverProbeDoneMedianMs",
        "<=",
        TARGET_FAILOVER_MS);
    row("failover kill->probe procedure done max ms", value(results, "failoverProbeDoneMaxMs"), "");
    row(
        "leader changes beyond the kills, during failovers",
        value(results, "failoverExtraLeaderChanges"),
        "");
    row(
        "rebuild procedures/s (" + results.get("liveProcedures") + " live)",
        value(results, "rebuildProceduresPerSecond"),
        "");
    checked(
        "rebuild ms of " + results.get("rebuildAtScaleProcedures") + " live",
        results,
        "rebuildAtScaleMs",
        "<=",
        TARGET_REBUILD_MS);
    row(
        "heap bytes per live procedure (3 nodes in this JVM)",
        value(results, "heapBytesPerLiveProcedure"),
        "measured parking up to the rebuild's live count");
    row(
        "disk bytes per live procedure after a snapshot",
        value(results, "diskBytesPerLiveProcedure"),
        "largest node: log + snapshots");
    row(
        "  of which snapshot bytes per live procedure",
        value(results, "snapshotBytesPerLiveProcedure"),
        "");
    System.out.println(json(results));
  }

  /** The results as the line {@code JSON {...}}, doubles with two decimals. */
  static String json(Map<String, Object> results) {
    StringBuilder json = new StringBuilder("{");
    results.forEach(
        (k, v) ->
            json.append(json.length() > 1 ? "," : "")
                .append('"')
                .append(k)
                .append("\":")
                .append(v instanceof Double d ? String.format(Locale.ROOT, "%.2f", d) : v));
    return "JSON " + json.append('}');
  }

  /** A result as a number; NaN if the run did not produce it. */
  static double value(Map<String, Object> results, String key) {
    return ((Number) results.getOrDefault(key, Double.NaN)).doubleValue();
  }

  /** A row whose note says whether the result meets its target. */
  static void checked(
      String name, Map<String, Object> results, String key, String op, double target) {
    double v = value(results, key);
    row(name, v, target(op, target, v));
  }

  static String target(String op, double target, double value) {
    boolean ok = op.equals(">=") ? value >= target : value <= target;
    return String.format(Locale.ROOT, "target %s %.0f: %s", op, target, ok ? "PASS" : "MISS");
  }

  static void row(String name, double value, String note) {
    System.out.printf(Locale.ROOT, "  %-48s %12.1f   %s%n", name, value, note);
  }
}
