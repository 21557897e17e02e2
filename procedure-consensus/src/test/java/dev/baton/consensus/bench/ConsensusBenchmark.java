package dev.baton.consensus.bench;

import static dev.baton.consensus.bench.BenchDiagnostics.log;

import dev.baton.consensus.LeadershipManager;
import dev.baton.consensus.ProcedureNode;
import dev.baton.consensus.RaftSettings;
import dev.baton.consensus.StateMachineMetrics;
import dev.baton.consensus.spi.LoopbackPorts;
import dev.baton.procedure.ProcedureExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The procedure-consensus benchmark: on one 3-node cluster in this JVM (real Ratis over gRPC on
 * loopback), raw Ratis entries/s (the baseline), then Baton's 3-state no-op procedures/s and store
 * updates/s with their ratio to the baseline, submit-to-done latency at half the peak rate, and the
 * failover time with many live procedures.
 *
 * <p>The phases in order: warm-up and peak load ({@link LoadPhases}), the raw baseline ({@link
 * RawRatisBaseline}), latency at half the peak, parked live procedures and disk per procedure, the
 * leader kills ({@link FailoverPhase}), and the rebuild at scale with heap per procedure; the
 * cluster is a {@link BenchCluster}, the table a {@link ConsensusBenchReport}.
 *
 * <p>Run: {@code mvn -B -q -pl procedure-consensus -am test-compile exec:java@bench-consensus}
 * (system properties {@code bench.warmupSeconds}, {@code bench.seconds}, {@code bench.live}, {@code
 * bench.kills}, {@code bench.rebuildLive}, {@code bench.workers}, {@code bench.window}, {@code
 * bench.electionMinMs}, {@code bench.electionMaxMs}; {@code bench.halfRate} fixes the latency
 * phase's rate in procedures/s instead of half the measured peak, to compare runs; {@code
 * bench.profile=<file.jfr>} adds a CPU profile of the half-peak phase, see {@link CpuProfile};
 * {@code bench.tls=true} runs the members over mutual TLS, {@code bench.tls=compare} only compares
 * peak and half-load latency without and with TLS, see {@link TlsComparison}).
 */
public final class ConsensusBenchmark {
  static final int DEFAULT_WARMUP_SECONDS = 60;
  static final int DEFAULT_MEASURE_SECONDS = 20;
  static final int DEFAULT_LIVE = 10_000;
  static final int DEFAULT_KILLS = 5;

  /** Live procedures for the rebuild measurement after the failovers: a large table to rebuild. */
  static final int DEFAULT_REBUILD_LIVE = 100_000;

  static final int DEFAULT_WORKERS = 32;
  static final int DEFAULT_WINDOW = 512;

  /** {@code bench.tls}: the members talk plaintext (the default), mutual TLS, or both in turn. */
  static final String TLS_OFF = "false";

  static final String TLS_ON = "true";

  /**
   * Only the TLS comparison ({@link TlsComparison}): throughput and half-load latency, both ways.
   */
  static final String TLS_COMPARE = "compare";

  /** Room traced beyond the half-peak phase's expected procedures (its ids may have gaps). */
  static final double TRACE_HEADROOM = 1.5;

  private final int warmup = Integer.getInteger("bench.warmupSeconds", DEFAULT_WARMUP_SECONDS);
  private final int seconds = Integer.getInteger("bench.seconds", DEFAULT_MEASURE_SECONDS);
  private final int live = Integer.getInteger("bench.live", DEFAULT_LIVE);
  private final int kills = Integer.getInteger("bench.kills", DEFAULT_KILLS);
  private final int rebuildLive = Integer.getInteger("bench.rebuildLive", DEFAULT_REBUILD_LIVE);
  private final int workers = Integer.getInteger("bench.workers", DEFAULT_WORKERS);
  private final int window = Integer.getInteger("bench.window", DEFAULT_WINDOW);

  /** Election timeouts of the nodes; the product defaults unless set (e.g. Ratis' 150/300 ms). */
  private final RaftSettings raft =
      RaftSettings.defaults()
          .withElectionTimeouts(
              Duration.ofMillis(
                  Long.getLong(
                      "bench.electionMinMs", RaftSettings.DEFAULT_ELECTION_TIMEOUT_MIN.toMillis())),
              Duration.ofMillis(
                  Long.getLong(
                      "bench.electionMaxMs", RaftSettings.DEFAULT_ELECTION_TIMEOUT_MAX.toMillis())))
          .withLogSegmentBytes(
              Long.getLong("bench.segmentBytes", RaftSettings.DEFAULT_LOG_SEGMENT_BYTES));

  private final BenchCluster cluster;
  private final LoadPhases load;
  private final Map<String, Object> results = new LinkedHashMap<>();

  private ConsensusBenchmark(Path dir, boolean tls) throws IOException {
    this.cluster = new BenchCluster(dir, raft, workers, tls);
    this.load = new LoadPhases(cluster, window);
  }

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("baton-bench");
    String tls = System.getProperty("bench.tls", TLS_OFF);
    if (TLS_COMPARE.equals(tls)) {
      try {
        // an instance only for its settings: the comparison starts clusters of its own
        ConsensusBenchmark settings = new ConsensusBenchmark(dir.resolve("unused"), false);
        new TlsComparison(
                settings.raft, settings.workers, settings.window, settings.warmup, settings.seconds)
            .run(dir);
      } finally {
        deleteTree(dir);
      }
      System.exit(0);
    }
    if (!TLS_OFF.equals(tls) && !TLS_ON.equals(tls)) {
      throw new IllegalArgumentException(
          "bench.tls is " + TLS_OFF + ", " + TLS_ON + " or " + TLS_COMPARE + ": " + tls);
    }
    ConsensusBenchmark bench = new ConsensusBenchmark(dir, TLS_ON.equals(tls));
    try {
      bench.run();
    } finally {
      bench.cluster.closeAll();
      deleteTree(dir);
    }
    System.exit(0);
  }

  private void run() throws Exception {
    results.put("tls", cluster.isTls());
    results.put("electionTimeoutMinMs", raft.electionTimeoutMin().toMillis());
    results.put("electionTimeoutMaxMs", raft.electionTimeoutMax().toMillis());
    // a run with -pl procedure-consensus but without -am takes procedure-core from ~/.m2, which
    // may be older than the sources: say which classes are measured
    log(
        "procedure-core from %s",
        ProcedureExecutor.class.getProtectionDomain().getCodeSource().getLocation());
    cluster.startAll();
    log("warming up for %d s (the JIT needs about a minute on 2 cores)", warmup);
    load.closedLoop(warmup);

    Map<String, InetSocketAddress> rawPeers = new LinkedHashMap<>();
    for (int i = 1; i <= BenchCluster.NODES; i++) {
      rawPeers.put("r" + i, new InetSocketAddress("127.0.0.1", LoopbackPorts.free()));
    }
    double raw;
    try (RawRatisBaseline baseline = new RawRatisBaseline(cluster.dir().resolve("raw"), rawPeers)) {
      baseline.run(Math.min(warmup, DEFAULT_MEASURE_SECONDS) / 2.0);
      raw = baseline.run(seconds);
    }
    results.put("rawRatisEntriesPerSecond", raw);

    ProcedureNode<Object> leader = cluster.awaitLeader();
    EntryCounts beforePeak = EntryCounts.of(leader);
    LoadRun peak = load.closedLoop(seconds);
    EntryCounts afterPeak = EntryCounts.of(leader);
    log("log entries at the peak: %s", afterPeak.since(beforePeak, peak));
    long batches = afterPeak.writes() - beforePeak.writes();
    long entries = afterPeak.writeEntries() - beforePeak.writeEntries();
    double updates = batches / peak.seconds;
    results.put("proceduresPerSecond", peak.perSecond());
    results.put("peakErrors", peak.errors.get());
    results.put("storeUpdatesPerSecond", updates);
    results.put("updatesPerLogEntry", entries == 0 ? 0 : (double) batches / entries);
    results.put("updatesToRawRatio", updates / raw);

    LoadRun half;
    LoadRun halfFromCall = new LoadRun();
    // a fixed rate (bench.halfRate) compares runs whose peaks differ with the machine's mood
    double halfRate = Double.parseDouble(System.getProperty("bench.halfRate", "0"));
    if (halfRate <= 0) {
      halfRate = peak.perSecond() / 2;
    }
    // ids are never reused: the phase's procedures come after this one's
    long firstId =
        cluster.await(
            "the half-peak phase's first id", leader.submit(new BenchProcedures.Noop3(), null));
    CpuProfile profile = CpuProfile.startIfAsked();
    try (StallWatch stalls = new StallWatch(cluster::stateMachines)) {
      LatencyBreakdown breakdown =
          new LatencyBreakdown(
              leader.metrics().writeTimings(),
              stalls,
              firstId + 1,
              (int) (halfRate * seconds * TRACE_HEADROOM));
      EntryCounts beforeHalf = EntryCounts.of(leader);
      ThreadAllocation allocation = new ThreadAllocation();
      half = load.openLoop(seconds, halfRate, breakdown, halfFromCall);
      log("log entries at half peak: %s", EntryCounts.of(leader).since(beforeHalf, half));
      for (String line : allocation.report(half.perSecond() * half.seconds)) {
        log("%s", line);
      }
      log("where submit-to-done time goes at half peak:");
      for (String line : breakdown.report()) {
        log("  %s", line);
      }
    }
    if (profile != null) {
      try (profile) {
        for (String line : profile.stopAndSummarize()) {
          log("  %s", line);
        }
      }
    }
    results.put("halfLoadRate", half.perSecond());
    results.put("halfLoadErrors", half.errors.get());
    results.put("latencyP50Ms", half.percentile(0.50));
    results.put("latencyP99Ms", half.percentile(0.99));
    results.put("latencyP999Ms", half.percentile(0.999));
    results.put("latencyFromCallP99Ms", halfFromCall.percentile(0.99));

    results.put("liveProcedures", load.fillParked(live));
    measureDisk();
    new FailoverPhase(cluster).run(kills, results);
    rebuildAtScale();
    ConsensusBenchReport.print(results);
  }

  /**
   * Parks procedures up to {@link #rebuildLive}, closes the leader once, and reports how long the
   * next running leader took from ready to {@code LEADER_RUNNING} (its rebuild from the table).
   */
  private void rebuildAtScale() throws Exception {
    int base = cluster.liveOnLeader();
    int more = rebuildLive - base;
    if (more > 0) {
      // heap per live procedure from the many parked here, long after the load phases: right
      // after them the Ratis caches are still emptying, and the difference can come out negative
      long heapBefore = Footprint.usedHeapAfterGc();
      int added = load.fillParked(more) - base;
      long heapAfter = Footprint.usedHeapAfterGc();
      results.put("heapBytesPerLiveProcedure", (heapAfter - heapBefore) / (double) added);
    }
    String victim = cluster.awaitLeader().nodeId();
    long gcCount = LatencyBreakdown.gcCount();
    long gcMillis = LatencyBreakdown.gcMillis();
    cluster.closeNode(victim);
    ProcedureNode<Object> next =
        cluster.awaitValue(
            "a LEADER_RUNNING leader other than " + victim + " (rebuild at scale)",
            () -> cluster.otherLeader(victim, true));
    LeadershipManager.Recovery r = next.lastRecovery().orElseThrow();
    // the three nodes share this JVM: a pause of any of them is a pause of the rebuild
    long pauses = LatencyBreakdown.gcCount() - gcCount;
    long paused = LatencyBreakdown.gcMillis() - gcMillis;
    cluster.startNode(victim);
    long ms = r.rebuildTime().toMillis();
    log(
        "rebuild of %d live procedures on %s: %d ms (%s); from the kill until it ran, %d GC"
            + " pauses took %d ms",
        r.procedures(), next.nodeId(), ms, r.phases(), pauses, paused);
    results.put("rebuildAtScaleProcedures", r.procedures());
    results.put("rebuildAtScaleMs", ms);
    results.put("rebuildAtScaleProceduresPerSecond", ms == 0 ? 0 : r.procedures() * 1000.0 / ms);
  }

  /**
   * Every node takes a snapshot (the log is purged behind it); then the bytes of each node's
   * storage and of its snapshots per live procedure, the largest node's.
   */
  private void measureDisk() throws Exception {
    int liveCount = ((Number) results.get("liveProcedures")).intValue();
    long storage = 0;
    long snapshots = 0;
    Path dir = cluster.dir();
    for (Map.Entry<String, ProcedureNode<Object>> e : cluster.nodes().entrySet()) {
      e.getValue().takeSnapshot().get(BenchCluster.WAIT.toSeconds(), TimeUnit.SECONDS);
      storage = Math.max(storage, Footprint.bytes(dir.resolve(e.getKey())));
      snapshots = Math.max(snapshots, Footprint.snapshotBytes(dir.resolve(e.getKey())));
    }
    results.put("diskBytesPerLiveProcedure", storage / (double) liveCount);
    results.put("snapshotBytesPerLiveProcedure", snapshots / (double) liveCount);
  }

  /**
   * The leader's applied entries by kind: a Raft entry costs every member about the same whatever
   * it carries, so these say how well group commit packs each kind at a given load.
   */
  private record EntryCounts(long writeEntries, long writes, long carried, long submitEntries) {
    static EntryCounts of(ProcedureNode<Object> leader) {
      StateMachineMetrics sm = leader.metrics();
      return new EntryCounts(
          sm.appliedWriteEntryCount(),
          sm.appliedBatchCount(),
          sm.carriedSubmissionCount(),
          sm.appliedSubmitEntryCount());
    }

    String since(EntryCounts before, LoadRun run) {
      double we = (writeEntries - before.writeEntries) / run.seconds;
      double se = (submitEntries - before.submitEntries) / run.seconds;
      double carriedPerSecond = (carried - before.carried) / run.seconds;
      double alone = run.perSecond() - carriedPerSecond; // one submission per procedure
      return String.format(
          "%.0f/s with store writes (%.1f writes and %.1f submissions each),"
              + " %.0f/s with submissions alone (%.1f each)",
          we,
          we == 0 ? 0 : (writes - before.writes) / run.seconds / we,
          we == 0 ? 0 : carriedPerSecond / we,
          se,
          se == 0 ? 0 : alone / se);
    }
  }

  /** Removes the benchmark's storage (hundreds of MB of Raft logs after a full run). */
  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
