package dev.baton.consensus.bench;

import java.util.Locale;
import java.util.Map;

/** The benchmark's table and JSON line, with each figure against its target. */
final class BenchReport {
  static final double TARGET_UPDATE_RATIO = 3.0;
  static final double TARGET_PROCS_PER_SECOND = 2000;
  static final double TARGET_P99_MS = 50;
  static final double TARGET_FAILOVER_MS = 1000;
  static final double TARGET_REBUILD_MS = 500;

  private BenchReport() {}

  static void print(Map<String, Object> results) {
    double raw = (double) results.get("rawRatisEntriesPerSecond");
    System.out.println();
    System.out.println(
        "Baton procedure-consensus benchmark (3 nodes in one JVM, gRPC on loopback)");
    row("raw Ratis entries/s (async client, window 64)", raw, "baseline");
    row(
        "3-state no-op procedures/s",
        (double) results.get("proceduresPerSecond"),
        target(">=", TARGET_PROCS_PER_SECOND, (double) results.get("proceduresPerSecond")));
    row("store updates/s", (double) results.get("storeUpdatesPerSecond"), "");
    row("store updates per log entry", (double) results.get("updatesPerLogEntry"), "");
    row(
        "store updates / raw entries",
        (double) results.get("updatesToRawRatio"),
        target(">=", TARGET_UPDATE_RATIO, (double) results.get("updatesToRawRatio")));
    row("latency p50 ms at half peak", (double) results.get("latencyP50Ms"), "");
    row(
        "latency p99 ms at half peak",
        (double) results.get("latencyP99Ms"),
        target("<=", TARGET_P99_MS, (double) results.get("latencyP99Ms")));
    row("latency p99.9 ms at half peak", (double) results.get("latencyP999Ms"), "");
    row("failover kill->elected median ms", (double) results.get("failoverElectedMedianMs"), "");
    row(
        "failover kill->LEADER_RUNNING median ms",
        (double) results.get("failoverRunningMedianMs"),
        "");
    row(
        "failover kill->probe procedure done median ms",
        (double) results.get("failoverProbeDoneMedianMs"),
        target("<=", TARGET_FAILOVER_MS, (double) results.get("failoverProbeDoneMedianMs")));
    row(
        "failover kill->probe procedure done max ms",
        (double) results.get("failoverProbeDoneMaxMs"),
        "");
    row(
        "leader changes beyond the kills, during failovers",
        ((Number) results.get("failoverExtraLeaderChanges")).doubleValue(),
        "");
    row(
        "rebuild procedures/s (" + results.get("liveProcedures") + " live)",
        (double) results.get("rebuildProceduresPerSecond"),
        "");
    row(
        "rebuild ms of " + results.get("rebuildAtScaleProcedures") + " live",
        ((Number) results.get("rebuildAtScaleMs")).doubleValue(),
        target("<=", TARGET_REBUILD_MS, ((Number) results.get("rebuildAtScaleMs")).doubleValue()));
    row(
        "heap bytes per live procedure (3 nodes in this JVM)",
        ((Number) results.getOrDefault("heapBytesPerLiveProcedure", Double.NaN)).doubleValue(),
        "measured parking up to the rebuild's live count");
    row(
        "disk bytes per live procedure after a snapshot",
        (double) results.get("diskBytesPerLiveProcedure"),
        "largest node: log + snapshots");
    row(
        "  of which snapshot bytes per live procedure",
        (double) results.get("snapshotBytesPerLiveProcedure"),
        "");
    StringBuilder json = new StringBuilder("{");
    results.forEach(
        (k, v) ->
            json.append(json.length() > 1 ? "," : "")
                .append('"')
                .append(k)
                .append("\":")
                .append(v instanceof Double d ? String.format(Locale.ROOT, "%.2f", d) : v));
    System.out.println("JSON " + json.append('}'));
  }

  static String target(String op, double target, double value) {
    boolean ok = op.equals(">=") ? value >= target : value <= target;
    return String.format(Locale.ROOT, "target %s %.0f: %s", op, target, ok ? "PASS" : "MISS");
  }

  static void row(String name, double value, String note) {
    System.out.printf(Locale.ROOT, "  %-48s %12.1f   %s%n", name, value, note);
  }
}
