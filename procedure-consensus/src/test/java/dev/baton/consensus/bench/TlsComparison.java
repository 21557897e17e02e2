package dev.baton.consensus.bench;

import static dev.baton.consensus.bench.BenchDiagnostics.log;

import dev.baton.consensus.RaftSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What mutual TLS between the members costs, measured in one run: new clusters in the order {@link
 * #ORDER}, each warmed up, then its peak (closed loop) and its submit-to-done latency at the same
 * rate for all (half the first cluster's peak, or {@code bench.halfRate}), so that the p99s compare
 * load for load. Prints one row per mode and a JSON line with the ratios against the targets: TLS
 * throughput at least {@value #TARGET_THROUGHPUT_RATIO} of plaintext, its half-load p99 at most
 * {@value #TARGET_P99_RATIO} times plaintext's.
 */
final class TlsComparison {
  static final double TARGET_THROUGHPUT_RATIO = 0.8;
  static final double TARGET_P99_RATIO = 1.25;

  /**
   * The clusters measured, in order (true: TLS): each mode once early and once late, so that a
   * machine warming up or a neighbour's load during one part of the run weighs on both alike.
   */
  static final List<Boolean> ORDER = List.of(false, true, true, false);

  private final RaftSettings raft;
  private final int workers;
  private final int window;
  private final int warmup;
  private final int seconds;

  TlsComparison(RaftSettings raft, int workers, int window, int warmup, int seconds) {
    this.raft = raft;
    this.workers = workers;
    this.window = window;
    this.warmup = warmup;
    this.seconds = seconds;
  }

  /** One mode's figures. */
  private record Row(double peak, double halfRate, double p50, double p99, long errors) {}

  void run(Path dir) throws Exception {
    double rate = Double.parseDouble(System.getProperty("bench.halfRate", "0"));
    Map<Boolean, List<Row>> rows = new LinkedHashMap<>();
    for (int i = 0; i < ORDER.size(); i++) {
      boolean tls = ORDER.get(i);
      Row r = measure(dir.resolve(i + "-" + mode(tls)), tls, rate);
      rate = r.halfRate(); // every later cluster is measured at the first one's half rate
      rows.computeIfAbsent(tls, k -> new ArrayList<>()).add(r);
    }
    Row plain = mean(rows.get(false));
    Row tls = mean(rows.get(true));
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("plaintextProceduresPerSecond", plain.peak());
    json.put("tlsProceduresPerSecond", tls.peak());
    json.put("halfLoadRate", plain.halfRate());
    json.put("plaintextLatencyP99Ms", plain.p99());
    json.put("tlsLatencyP99Ms", tls.p99());
    json.put("tlsThroughputRatio", tls.peak() / plain.peak());
    json.put("tlsP99Ratio", tls.p99() / plain.p99());
    json.put("errors", plain.errors() + tls.errors());
    System.out.println();
    System.out.println(
        "Mutual TLS between members against plaintext (3 nodes in one JVM, loopback; clusters in"
            + " the order plaintext, TLS, TLS, plaintext, each mode the mean of its two)");
    System.out.printf(
        Locale.ROOT,
        "%-16s %14s %12s %12s %12s%n",
        "mode",
        "procedures/s",
        "half rate/s",
        "p50 ms",
        "p99 ms");
    for (int i = 0; i < ORDER.size(); i++) {
      boolean t = ORDER.get(i);
      print((i + 1) + ". " + mode(t), rows.get(t).get(i < ORDER.size() / 2 ? 0 : 1));
    }
    print("plaintext, mean", plain);
    print("TLS, mean", tls);
    System.out.printf(
        Locale.ROOT,
        "TLS throughput / plaintext %.2f (target >= %.2f); half-load p99 TLS / plaintext %.2f"
            + " (target <= %.2f)%n",
        tls.peak() / plain.peak(),
        TARGET_THROUGHPUT_RATIO,
        tls.p99() / plain.p99(),
        TARGET_P99_RATIO);
    System.out.println(ConsensusBenchReport.json(json));
  }

  private static String mode(boolean tls) {
    return tls ? "TLS" : "plaintext";
  }

  private static Row mean(List<Row> rows) {
    double n = rows.size();
    return new Row(
        rows.stream().mapToDouble(Row::peak).sum() / n,
        rows.get(0).halfRate(),
        rows.stream().mapToDouble(Row::p50).sum() / n,
        rows.stream().mapToDouble(Row::p99).sum() / n,
        rows.stream().mapToLong(Row::errors).sum());
  }

  private static void print(String mode, Row r) {
    System.out.printf(
        Locale.ROOT,
        "%-10s %14.0f %12.0f %12.1f %12.1f%n",
        mode,
        r.peak(),
        r.halfRate(),
        r.p50(),
        r.p99());
  }

  /** Warm-up, peak and half-load latency of a new cluster; at {@code halfRate} if positive. */
  private Row measure(Path dir, boolean tls, double halfRate) throws Exception {
    BenchCluster cluster = new BenchCluster(dir, raft, workers, tls);
    try {
      LoadPhases load = new LoadPhases(cluster, window);
      cluster.startAll();
      log("%s: warming up for %d s", mode(tls), warmup);
      load.closedLoop(warmup);
      LoadRun peak = load.closedLoop(seconds);
      double rate = halfRate > 0 ? halfRate : peak.perSecond() / 2;
      LoadRun half = load.openLoop(seconds, rate, null, new LoadRun());
      log(
          "%s: %.0f procedures/s at the peak; p99 %.1f ms at %.0f/s",
          tls ? "TLS" : "plaintext", peak.perSecond(), half.percentile(0.99), rate);
      return new Row(
          peak.perSecond(),
          rate,
          half.percentile(0.50),
          half.percentile(0.99),
          peak.errors.get() + half.errors.get());
    } finally {
      cluster.closeAll();
    }
  }
}
