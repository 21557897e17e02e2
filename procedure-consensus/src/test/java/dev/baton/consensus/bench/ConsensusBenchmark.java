package dev.baton.consensus.bench;

import dev.baton.consensus.LeadershipManager;
import dev.baton.consensus.NodeRole;
import dev.baton.consensus.ProcedureNode;
import dev.baton.consensus.ProcedureStateMachine;
import dev.baton.consensus.RaftSettings;
import dev.baton.procedure.ProcedureExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The procedure-consensus benchmark: on one 3-node cluster in this JVM (real Ratis over gRPC on
 * loopback), raw Ratis entries/s (the baseline), then Baton's 3-state no-op procedures/s and store
 * updates/s with their ratio to the baseline, submit-to-done latency at half the peak rate, and the
 * failover time with many live procedures.
 *
 * <p>Run: {@code mvn -B -q -pl procedure-consensus -am test-compile exec:java@bench-consensus}
 * (system properties {@code bench.warmupSeconds}, {@code bench.seconds}, {@code bench.live}, {@code
 * bench.kills}, {@code bench.workers}, {@code bench.window}).
 */
public final class ConsensusBenchmark {
  static final int DEFAULT_WARMUP_SECONDS = 60;
  static final int DEFAULT_MEASURE_SECONDS = 20;
  static final int DEFAULT_LIVE = 10_000;
  static final int DEFAULT_KILLS = 5;

  /** Live procedures for the rebuild measurement after the failovers (issue 4: 100,000). */
  static final int DEFAULT_REBUILD_LIVE = 100_000;

  static final int DEFAULT_WORKERS = 32;
  static final int DEFAULT_WINDOW = 512;
  static final int NODES = 3;
  static final Duration WAIT = Duration.ofSeconds(60);

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
                      "bench.electionMaxMs",
                      RaftSettings.DEFAULT_ELECTION_TIMEOUT_MAX.toMillis())));

  private final Path dir;
  private final Map<String, InetSocketAddress> peers = new LinkedHashMap<>();
  private final Map<String, ProcedureNode<Object>> nodes = new LinkedHashMap<>();
  private final Map<String, Object> results = new LinkedHashMap<>();

  private ConsensusBenchmark(Path dir) throws IOException {
    this.dir = dir;
    for (int i = 1; i <= NODES; i++) {
      peers.put("b" + i, new InetSocketAddress("127.0.0.1", freePort()));
    }
  }

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("baton-bench");
    ConsensusBenchmark bench = new ConsensusBenchmark(dir);
    try {
      bench.run();
    } finally {
      bench.closeAll();
      deleteTree(dir);
    }
    System.exit(0);
  }

  private void run() throws Exception {
    results.put("electionTimeoutMinMs", raft.electionTimeoutMin().toMillis());
    results.put("electionTimeoutMaxMs", raft.electionTimeoutMax().toMillis());
    for (String id : peers.keySet()) {
      startNode(id);
    }
    log("warming up for %d s (the JIT needs about a minute on 2 cores)", warmup);
    closedLoop(warmup);

    Map<String, InetSocketAddress> rawPeers = new LinkedHashMap<>();
    for (int i = 1; i <= NODES; i++) {
      rawPeers.put("r" + i, new InetSocketAddress("127.0.0.1", freePort()));
    }
    double raw;
    try (RawRatisBaseline baseline = new RawRatisBaseline(dir.resolve("raw"), rawPeers)) {
      baseline.run(Math.min(warmup, DEFAULT_MEASURE_SECONDS) / 2.0);
      raw = baseline.run(seconds);
    }
    results.put("rawRatisEntriesPerSecond", raw);

    ProcedureNode<Object> leader = awaitLeader();
    long batches0 = leader.stateMachine().appliedBatchCount();
    long entries0 = leader.stateMachine().appliedWriteEntryCount();
    LoadRun peak = closedLoop(seconds);
    long batches = leader.stateMachine().appliedBatchCount() - batches0;
    long entries = leader.stateMachine().appliedWriteEntryCount() - entries0;
    double updates = batches / peak.seconds;
    results.put("proceduresPerSecond", peak.perSecond());
    results.put("peakErrors", peak.errors.get());
    results.put("storeUpdatesPerSecond", updates);
    results.put("updatesPerLogEntry", entries == 0 ? 0 : (double) batches / entries);
    results.put("updatesToRawRatio", updates / raw);

    LoadRun half;
    try (StallWatch stalls = new StallWatch(this::stateMachines)) {
      LatencyBreakdown breakdown =
          new LatencyBreakdown(leader.stateMachine().writeTimings(), stalls);
      half = openLoop(seconds, peak.perSecond() / 2, breakdown);
      log("where submit-to-done time goes at half peak:");
      for (String line : breakdown.report()) {
        log("  %s", line);
      }
    }
    results.put("halfLoadRate", half.perSecond());
    results.put("halfLoadErrors", half.errors.get());
    results.put("latencyP50Ms", half.percentile(0.50));
    results.put("latencyP99Ms", half.percentile(0.99));
    results.put("latencyP999Ms", half.percentile(0.999));

    results.put("liveProcedures", fillParked(live));
    measureDisk();
    failovers();
    rebuildAtScale();
    BenchReport.print(results);
  }

  /** Submits with {@link #window} outstanding for {@code secs}; counts finished procedures. */
  private LoadRun closedLoop(double secs) throws Exception {
    Semaphore permits = new Semaphore(window);
    LoadRun run = new LoadRun();
    long end = System.nanoTime() + (long) (secs * 1e9);
    while (System.nanoTime() < end) {
      permits.acquire();
      submitNoop(run, permits::release, null);
    }
    permits.acquire(window);
    run.finish();
    return run;
  }

  /** Submits at a fixed rate for {@code secs}; records submit-to-done latency. */
  private LoadRun openLoop(double secs, double rate, LatencyBreakdown breakdown) throws Exception {
    LoadRun run = new LoadRun();
    long interval = (long) (1e9 / rate);
    long next = System.nanoTime();
    long end = next + (long) (secs * 1e9);
    AtomicLong outstanding = new AtomicLong();
    while (next < end) {
      LockSupport.parkNanos(next - System.nanoTime());
      outstanding.incrementAndGet();
      submitNoop(run, outstanding::decrementAndGet, breakdown);
      next += interval;
    }
    awaitTrue("open loop: " + outstanding + " outstanding", () -> outstanding.get() == 0);
    run.finish();
    return run;
  }

  /** Submits one Noop3 and records its latency (and its breakdown, if given) once it is done. */
  private void submitNoop(LoadRun run, Runnable done, LatencyBreakdown breakdown) {
    ProcedureNode<Object> leader = currentLeader();
    long start = System.nanoTime();
    long[] idAt = new long[2];
    leader
        .submit(new BenchProcedures.Noop3(), null)
        .thenCompose(
            id -> {
              idAt[0] = id;
              idAt[1] = System.nanoTime();
              // bounded: an executor that stopped under it must not hang the load loop
              return executorOf(leader)
                  .whenFinished(id)
                  .orTimeout(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            })
        .whenComplete(
            (info, e) -> {
              if (e == null) {
                long now = System.nanoTime();
                run.record(now - start);
                if (breakdown != null) {
                  breakdown.record(idAt[0], start, idAt[1], now);
                }
              } else {
                run.errors.incrementAndGet();
              }
              done.run();
            });
  }

  /**
   * Submits {@code count} procedures that park, on whichever node runs the executor (under load a
   * leader change may happen meanwhile), and waits until the running leader holds them all.
   */
  /** Parks {@code count} more procedures; returns the running leader's live count after. */
  private int fillParked(int count) throws Exception {
    log("parking %d live procedures", count);
    Semaphore permits = new Semaphore(window);
    int base = liveOnLeader();
    AtomicLong failed = new AtomicLong();
    for (int i = 0; i < count; i++) {
      permits.acquire();
      currentLeader()
          .submit(new BenchProcedures.Parked(), null)
          .whenComplete(
              (id, e) -> {
                if (e != null) {
                  failed.incrementAndGet();
                }
                permits.release();
              });
    }
    permits.acquire(window);
    awaitTrue(
        count + " parked procedures live on the running leader (" + failed + " submissions failed)",
        () -> liveOnLeader() >= base + count - failed.get());
    return liveOnLeader();
  }

  /**
   * Parks procedures up to {@link #rebuildLive}, closes the leader once, and reports how long the
   * next running leader took from ready to {@code LEADER_RUNNING} (its rebuild from the table).
   */
  private void rebuildAtScale() throws Exception {
    int base = liveOnLeader();
    int more = rebuildLive - base;
    if (more > 0) {
      // heap per live procedure from the many parked here, long after the load phases: parking
      // right after them measured the Ratis caches emptying (negative figures)
      long heapBefore = Footprint.usedHeapAfterGc();
      int added = fillParked(more) - base;
      long heapAfter = Footprint.usedHeapAfterGc();
      results.put("heapBytesPerLiveProcedure", (heapAfter - heapBefore) / (double) added);
    }
    String victim = awaitLeader().nodeId();
    closeNode(victim);
    ProcedureNode<Object> next =
        awaitValue(
            "a LEADER_RUNNING leader other than " + victim + " (rebuild at scale)",
            () -> otherLeader(victim, true));
    LeadershipManager.Recovery r = next.lastRecovery().orElseThrow();
    startNode(victim);
    long ms = r.rebuildTime().toMillis();
    log("rebuild of %d live procedures on %s: %d ms", r.procedures(), next.nodeId(), ms);
    results.put("rebuildAtScaleProcedures", r.procedures());
    results.put("rebuildAtScaleMs", ms);
    results.put("rebuildAtScaleProceduresPerSecond", ms == 0 ? 0 : r.procedures() * 1000.0 / ms);
  }

  /** Live procedures of the running leader's executor (0 if it stopped just now). */
  private int liveOnLeader() {
    return awaitLeader().executor().map(ProcedureExecutor::liveCount).orElse(0);
  }

  /**
   * Every node takes a snapshot (the log is purged behind it); then the bytes of each node's
   * storage and of its snapshots per live procedure, the largest node's.
   */
  private void measureDisk() throws Exception {
    int liveCount = ((Number) results.get("liveProcedures")).intValue();
    long storage = 0;
    long snapshots = 0;
    for (Map.Entry<String, ProcedureNode<Object>> e : nodes.entrySet()) {
      e.getValue().takeSnapshot().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      storage = Math.max(storage, Footprint.bytes(dir.resolve(e.getKey())));
      snapshots = Math.max(snapshots, Footprint.snapshotBytes(dir.resolve(e.getKey())));
    }
    results.put("diskBytesPerLiveProcedure", storage / (double) liveCount);
    results.put("snapshotBytesPerLiveProcedure", snapshots / (double) liveCount);
  }

  private void failovers() throws Exception {
    List<Long> elected = new ArrayList<>();
    List<Long> running = new ArrayList<>();
    List<Long> firstStep = new ArrayList<>();
    List<Long> rebuildMs = new ArrayList<>();
    int moves = 0;
    for (int k = 0; k < kills; k++) {
      String kill = "kill " + (k + 1);
      ProcedureNode<Object> old = awaitLeader();
      String victim = old.nodeId();
      long t0 = System.nanoTime();
      long t0Wall = System.currentTimeMillis();
      long[] closedAt = new long[1];
      Thread killer =
          new Thread(
              () -> {
                closeNode(victim);
                closedAt[0] = ms(t0);
              },
              "bench-kill");
      killer.start();
      ProcedureNode<Object> first =
          awaitValue(kill + ": a leader other than " + victim, () -> otherLeader(victim, false));
      elected.add(ms(t0));
      // whichever node leads once one runs: under load the first elected may lose leadership
      // before it runs its executor, and then another node carries on
      ProcedureNode<Object> leader =
          awaitValue(
              kill + ": a LEADER_RUNNING leader other than " + victim,
              () -> otherLeader(victim, true));
      running.add(ms(t0));
      long probe =
          await(
              kill + ": submission of the probe on " + leader.nodeId(),
              leader.submit(new BenchProcedures.Noop3(), null));
      ProcedureNode<Object> ran = awaitProbe(kill, victim, probe);
      firstStep.add(ms(t0));
      LeadershipManager.Recovery recovery = ran.lastRecovery().orElseThrow();
      rebuildMs.add(recovery.rebuildTime().toMillis());
      killer.join();
      startNode(victim);
      String path = victim + " -> " + first.nodeId();
      if (first != ran) {
        moves++;
        path += " -> " + ran.nodeId() + " (leadership moved again during the failover)";
      }
      log(
          "%s: %s, elected %d ms, ready %d ms, running %d ms, probe done %d ms, rebuild of %d"
              + " procedures %d ms; the victim's close() returned after %d ms",
          kill,
          path,
          elected.get(k),
          recovery.readyAtMillis() - t0Wall,
          running.get(k),
          firstStep.get(k),
          recovery.procedures(),
          rebuildMs.get(k),
          closedAt[0]);
    }
    results.put("failoverExtraLeaderChanges", moves);
    results.put("failoverElectedMedianMs", median(elected));
    results.put("failoverRunningMedianMs", median(running));
    results.put("failoverProbeDoneMedianMs", median(firstStep));
    results.put("failoverProbeDoneMaxMs", max(firstStep));
    results.put("rebuildMedianMs", median(rebuildMs));
    int liveCount = ((Number) results.get("liveProcedures")).intValue();
    double rebuild = median(rebuildMs);
    results.put("rebuildProceduresPerSecond", rebuild == 0 ? 0 : liveCount * 1000.0 / rebuild);
  }

  /**
   * Waits until the probe finished on the running leader; if that leader's executor stops first
   * (leadership moved), waits on the next running leader's. Returns the node that ran it.
   */
  private ProcedureNode<Object> awaitProbe(String kill, String victim, long probe)
      throws InterruptedException {
    String what = kill + ": probe " + probe + " finished";
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      ProcedureNode<Object> leader =
          awaitValue(what + " (a running leader)", () -> otherLeader(victim, true));
      Optional<ProcedureExecutor<Object>> executor = leader.executor();
      if (executor.isEmpty()) {
        continue;
      }
      try {
        executor.get().whenFinished(probe).get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        return leader;
      } catch (ExecutionException stopped) {
        log(
            "%s: the executor of %s stopped (%s); waiting on the next leader",
            kill, leader, stopped);
      } catch (TimeoutException e) {
        throw gaveUp(what + " on " + leader.nodeId(), null);
      }
    }
  }

  private static void log(String format, Object... args) {
    System.out.printf(Locale.ROOT, "[bench] " + format + "%n", args);
  }

  private void startNode(String id) throws IOException {
    ProcedureNode<Object> node =
        ProcedureNode.<Object>builder()
            .nodeId(id)
            .peers(peers)
            .storageDir(dir.resolve(id))
            .registry(BenchProcedures.registry())
            .environment(leader -> new Object())
            .coreWorkers(workers)
            .maxWorkers(workers)
            .completedRetention(Duration.ZERO)
            .raft(raft)
            .build();
    node.start();
    synchronized (nodes) {
      nodes.put(id, node);
    }
  }

  private void closeNode(String id) {
    ProcedureNode<Object> n;
    synchronized (nodes) {
      n = nodes.remove(id);
    }
    if (n != null) {
      n.close();
    }
  }

  private void closeAll() {
    for (String id : new ArrayList<>(nodes.keySet())) {
      closeNode(id);
    }
  }

  private List<ProcedureStateMachine> stateMachines() {
    synchronized (nodes) {
      return nodes.values().stream().map(ProcedureNode::stateMachine).toList();
    }
  }

  private ProcedureNode<Object> currentLeader() {
    ProcedureNode<Object> l = otherLeader(null, true);
    return l != null ? l : awaitLeader();
  }

  private ProcedureNode<Object> awaitLeader() {
    return awaitValue("a LEADER_RUNNING leader", () -> otherLeader(null, true));
  }

  private ProcedureNode<Object> otherLeader(String not, boolean mustRun) {
    synchronized (nodes) {
      for (ProcedureNode<Object> n : nodes.values()) {
        if (!n.nodeId().equals(not)
            && n.isLeader()
            && (!mustRun || n.role() == NodeRole.LEADER_RUNNING)) {
          return n;
        }
      }
    }
    return null;
  }

  private static ProcedureExecutor<Object> executorOf(ProcedureNode<Object> node) {
    return node.executor().orElseThrow(() -> new IllegalStateException(node + " runs no executor"));
  }

  private <T> T awaitValue(String what, Supplier<T> s) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      T v = s.get();
      if (v != null) {
        return v;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    throw gaveUp(what, null);
  }

  private void awaitTrue(String what, Supplier<Boolean> s) {
    awaitValue(what, () -> s.get() ? Boolean.TRUE : null);
  }

  /**
   * Waits for a future; on failure or timeout, says what was awaited and how the cluster stands.
   */
  private <T> T await(String what, CompletableFuture<T> f) throws InterruptedException {
    try {
      return f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw gaveUp(what, e instanceof ExecutionException ? e.getCause() : e);
    }
  }

  private IllegalStateException gaveUp(String what, Throwable cause) {
    String state;
    synchronized (nodes) {
      state = BenchDiagnostics.clusterState(peers.keySet(), nodes);
    }
    String message =
        (cause == null ? "gave up after " + WAIT : "failed (" + cause + ")")
            + " waiting for "
            + what
            + "; cluster: "
            + state;
    log("%s", message);
    log("threads of the nodes at that moment:%n%s", BenchDiagnostics.threadDump());
    return new IllegalStateException(message, cause);
  }

  private static long ms(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }

  private static double median(List<Long> v) {
    long[] a = v.stream().mapToLong(Long::longValue).sorted().toArray();
    return a.length == 0 ? 0 : a[a.length / 2];
  }

  private static double max(List<Long> v) {
    return v.stream().mapToLong(Long::longValue).max().orElse(0);
  }

  /** Removes the benchmark's storage (hundreds of MB of Raft logs after a full run). */
  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
