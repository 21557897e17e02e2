package dev.baton.confignode.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.baton.confignode.http.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one {@link Bench} run measured, all in one run on one machine against the same processes, so
 * that each figure is also a ratio to the raw Raft baseline. Rates and latencies count the
 * successful operations only; the failed ones are counted in {@code failures}.
 *
 * @param settings what ran
 * @param wallSeconds from the first submission to the last procedure done
 * @param proceduresPerSecond procedures done (ended in SUCCESS) per second of wall time
 * @param storeBatchesPerSecond procedure-store write batches the leader applied per second (from
 *     its {@code baton_applied_store_batches_total})
 * @param logEntriesPerSecond Raft log entries carrying store batches per second (group commit:
 *     several batches per entry; {@code baton_applied_write_entries_total})
 * @param latency submit to finished as the client sees it: from the submit call (or, in the open
 *     loop, from when the procedure was due) to the long poll's answer that it finished
 * @param submitLatency from the submit call to its answer (the submission committed); null when
 *     each procedure was submitted and awaited in one request
 * @param rawCommitsPerSecond empty entries committed per second through a Raft client with as many
 *     clients
 * @param rawLatency one empty commit's latency through that client
 * @param leaderRead {@code GET /api/procedures/ID} on the leader's admin API
 * @param followerRead the same on a follower's
 * @param cpu CPU time per procedure of each process over the procedures' measured phase
 * @param connectionsOpened connections (TCP connects and, secured, TLS handshakes) the bench's
 *     admin API client opened during the procedures' measured phase: 0 when its warm-up left as
 *     many open as the measured load holds at once
 * @param failed measured procedures that did not end in SUCCESS: their operation threw (no answer
 *     in time, refused, ...) or the procedure ended otherwise
 * @param failures the failed operations of each phase (commit warm-up, procedure warm-up, the
 *     warm-up until the JIT is quiet, procedures, raw baseline), with their most common errors
 */
public record BenchResult(
    Bench.Settings settings,
    double wallSeconds,
    double proceduresPerSecond,
    double storeBatchesPerSecond,
    double logEntriesPerSecond,
    Percentiles latency,
    Percentiles submitLatency,
    double rawCommitsPerSecond,
    Percentiles rawLatency,
    Percentiles leaderRead,
    Percentiles followerRead,
    CpuPerProcedure cpu,
    long connectionsOpened,
    int failed,
    List<PhaseFailures> failures) {

  public BenchResult {
    failures = List.copyOf(failures);
  }

  /** Failed operations of all phases: a run with any is not a clean one. */
  public int failedOperations() {
    return failures.stream().mapToInt(PhaseFailures::count).sum();
  }

  /** A table for people. */
  public String table() {
    StringBuilder out = new StringBuilder();
    out.append("=== Baton bench ===\n");
    out.append(
        String.format(
            Locale.ROOT,
            "cluster: %d ConfigNode processes; %d Noop procedures of %d steps, %s%n",
            settings.nodes(),
            settings.procedures(),
            settings.steps(),
            settings.openLoop()
                ? String.format(Locale.ROOT, "open loop at %.1f/s", settings.rate())
                : settings.clients() + " closed-loop clients"));
    out.append("rates and latencies of the successful operations; failures at the end\n");
    row(out, "wall time (s)", wallSeconds);
    row(out, "procedures/s", proceduresPerSecond);
    row(out, "store batches/s", storeBatchesPerSecond);
    row(out, "log entries/s", logEntriesPerSecond);
    percentiles(out, "latency", latency);
    if (submitLatency != null) {
      percentiles(out, "submit answer", submitLatency);
    } else {
      out.append("  (one request per procedure: submitted and awaited; --submit-then-wait\n");
      out.append("   measures the submission's answer on its own)\n");
    }
    out.append("CPU per procedure (ms), over the measured procedures:\n");
    row(out, "bench client", cpu.bench(), CPU_FORMAT);
    row(out, "leader", cpu.leader(), CPU_FORMAT);
    for (double f : cpu.followers()) {
      row(out, "follower", f, CPU_FORMAT);
    }
    row(out, "all processes", cpu.total(), CPU_FORMAT);
    out.append(
        String.format(Locale.ROOT, "  %-30s %12d%n", "connections opened", connectionsOpened));
    out.append(
        String.format(
            Locale.ROOT, "raw Raft baseline (empty commits, %d clients):%n", settings.clients()));
    row(out, "commits/s", rawCommitsPerSecond);
    percentiles(out, "commit", rawLatency);
    out.append("reads (GET /api/procedures/ID, one client):\n");
    row(out, "leader p50 (ms)", leaderRead.p50());
    row(out, "follower p50 (ms)", followerRead.p50());
    row(out, "follower p99 (ms)", followerRead.p99());
    out.append("ratios:\n");
    Map<String, Double> r = ratios();
    row(out, "latency p50 / commit p50", r.get("latencyP50ToCommitP50"));
    row(out, "procedures/s / commits/s", r.get("proceduresToCommits"));
    row(out, "follower / leader read p50", r.get("followerToLeaderReadP50"));
    out.append("failed operations (threw, or the procedure did not end in SUCCESS):\n");
    for (PhaseFailures f : failures) {
      out.append(String.format(Locale.ROOT, "  %-30s %12d%n", f.phase(), f.count()));
      for (PhaseFailures.ErrorCount e : f.errors()) {
        out.append(String.format(Locale.ROOT, "    %d × %s%n", e.count(), e.message()));
      }
    }
    return out.toString();
  }

  /** Each figure as a ratio to its baseline. */
  public Map<String, Double> ratios() {
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("latencyP50ToCommitP50", ratio(latency.p50(), rawLatency.p50()));
    m.put("proceduresToCommits", ratio(proceduresPerSecond, rawCommitsPerSecond));
    m.put("followerToLeaderReadP50", ratio(followerRead.p50(), leaderRead.p50()));
    return m;
  }

  private static double ratio(double a, double b) {
    return b == 0 ? 0 : Math.round(a / b * 100) / 100.0;
  }

  private static void percentiles(StringBuilder out, String name, Percentiles p) {
    row(out, name + " p50 (ms)", p.p50());
    row(out, name + " p99 (ms)", p.p99());
    row(out, name + " p99.9 (ms)", p.p999());
  }

  private static void row(StringBuilder out, String name, double value) {
    row(out, name, value, VALUE_FORMAT);
  }

  private static void row(StringBuilder out, String name, double value, String format) {
    out.append(String.format(Locale.ROOT, format, name, value));
  }

  private static final String VALUE_FORMAT = "  %-30s %12.1f%n";

  /** CPU milliseconds per procedure: fractions of a millisecond matter. */
  private static final String CPU_FORMAT = "  %-30s %12.2f%n";

  /** One JSON object on one line, for scripts. */
  public String jsonLine() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("bench", "confignode");
    m.put("nodes", settings.nodes());
    m.put("procedures", settings.procedures());
    m.put("steps", settings.steps());
    m.put("clients", settings.clients());
    m.put("rate", settings.rate());
    m.put("wallSeconds", round(wallSeconds));
    m.put("proceduresPerSecond", round(proceduresPerSecond));
    m.put("storeBatchesPerSecond", round(storeBatchesPerSecond));
    m.put("logEntriesPerSecond", round(logEntriesPerSecond));
    m.put("latencyMillis", latency.json());
    m.put("submitThenWait", settings.submitThenWait());
    if (submitLatency != null) {
      m.put("submitMillis", submitLatency.json());
    }
    m.put("rawCommitsPerSecond", round(rawCommitsPerSecond));
    m.put("rawCommitMillis", rawLatency.json());
    m.put("leaderReadMillis", leaderRead.json());
    m.put("followerReadMillis", followerRead.json());
    m.put("cpuMillisPerProcedure", cpu.json());
    m.put("connectionsOpened", connectionsOpened);
    m.put("ratios", ratios());
    m.put("failed", failed);
    m.put("failedOperations", failedOperations());
    m.put("failures", failures.stream().map(PhaseFailures::json).toList());
    try {
      return Json.LENIENT.writeValueAsString(m);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("bench result not serializable", e);
    }
  }

  static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
