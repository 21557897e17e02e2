package dev.baton.confignode.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.procedures.ConfigNodeProcedures;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.consensus.ProcedureClient;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The ConfigNode benchmark: a local cluster of ConfigNode processes (no DataNodes, one JVM each, as
 * deployed) and, in one run against the same processes, each part after a warm-up of its own:
 *
 * <ol>
 *   <li>procedures: Noop procedures of {@code steps} steps submitted through the admin API, each
 *       awaited with a long poll ({@code GET /api/procedures/ID?waitFor=finished}), {@code
 *       procedures} in all after a warm-up; from {@code clients} closed-loop clients, or at a fixed
 *       {@code rate} (open loop, latency from each procedure's scheduled start);
 *   <li>the raw Raft baseline: empty entries committed through a Raft client of the same cluster
 *       ({@link ProcedureClient#commitEmpty}), as many and with as many clients;
 *   <li>reads: the same finished procedure read from the leader's and a follower's admin API in
 *       turn.
 * </ol>
 *
 * Figures: procedures/s, the leader's store batches and log entries per second (its {@code
 * /metrics}), latencies (submit answer, submit to finished as the client sees it), the baseline's
 * commits/s and latencies, read latencies, and the ratios between them ({@link BenchResult}). Rates
 * and latencies count the successful operations; the failed ones (an exception, or a procedure that
 * did not end in SUCCESS) are counted per phase and the run goes on, unless every operation of a
 * phase failed for {@link ConfigNodeWaits#BENCH_ALL_FAILING_LIMIT} or more than {@code maxFailures}
 * failed in one: then it stops with an {@link IOException} saying what failed.
 */
public final class Bench implements AutoCloseable {
  /** Nonce group of the bench's submissions. */
  static final long NONCE_GROUP = 0xbe7c;

  /**
   * Warm-up empty commits and reads (not measured): this fraction (1/10) of the run, at most {@link
   * #MAX_WARMUP}.
   */
  static final int WARMUP_DIVISOR = 10;

  static final int MAX_WARMUP = 500;

  /**
   * Warm-up reads of each kind, at least (then on while the read times still fall, {@link
   * BenchReads#warm}). A probe of a follower's read index round trip (p50 of each 500 follower
   * reads, 2026-11-28) fell from 1.9 ms to about 0.3 ms over the first 12,000 pairs and stayed at
   * 0.2-0.25 ms over the next 40,000.
   */
  static final int MIN_WARMUP_READS = 20_000;

  /** The phases run through {@link Load}, as the report names them. */
  static final String COMMIT_WARMUP = "commit warm-up";

  static final String PROCEDURE_WARMUP = "procedure warm-up";
  static final String JIT_WARMUP = "warm-up until the JIT is quiet";
  static final String PROCEDURES = "procedures";
  static final String RAW_COMMITS = "raw Raft baseline";

  /**
   * How often the warm-up's end looks at the nodes' JIT compilers, and the least it lasts: a look
   * at the compilers' CPU time over this long ({@code /proc} counts it in hundredths of a second).
   */
  static final Duration JIT_LOOK = Duration.ofSeconds(2);

  /**
   * The busiest node's compilers' share of a core under which the warm-up ends: the JIT still
   * compiles now and then for the rest of a JVM's life (a method that got hot, a deoptimization),
   * but no longer takes a measurable part of the CPU the measured phase shares.
   */
  static final double JIT_QUIET_SHARE = 0.10;

  /**
   * The longest the warm-up goes on for the JIT, in warm-ups ({@code --warmup-seconds}): a machine
   * too busy for the compilers to catch up still gets its figures, the report saying so.
   */
  static final int JIT_WARMUPS_AT_MOST = 2;

  private static final double PERCENT = 100;

  static final String STORE_BATCHES = "baton_applied_store_batches_total";
  static final String LOG_ENTRIES = "baton_applied_write_entries_total";

  /**
   * What to run.
   *
   * @param nodes ConfigNode processes
   * @param procedures procedures measured
   * @param steps steps of each Noop
   * @param clients concurrent closed-loop clients (and the baseline's)
   * @param rate procedures started per second (open loop); 0 for the closed loop
   * @param warmup how long procedures run right before the measured ones, in their shape ({@code
   *     clients} closed-loop clients, or the open loop at {@code rate})
   * @param keepDir keep the temp dir (logs, data)
   * @param tokens secured (tokens, HTTPS, Raft over mutual TLS)
   * @param submitThenWait each procedure in two requests, the submission then a long poll, which
   *     measures the submission's answer; otherwise one ({@code POST
   *     /api/procedures?waitFor=finished}), as a client that wants the outcome sends it
   * @param maxFailures failed operations a phase may have before the bench stops ({@link
   *     #UNLIMITED_FAILURES}: no bound but {@link ConfigNodeWaits#BENCH_ALL_FAILING_LIMIT})
   */
  public record Settings(
      int nodes,
      int procedures,
      int steps,
      int clients,
      double rate,
      Duration warmup,
      boolean keepDir,
      boolean tokens,
      boolean submitThenWait,
      int maxFailures) {
    /** Closed loop, secured, as every local cluster by default, one request per procedure. */
    public Settings(int nodes, int procedures, int steps, int clients, boolean keepDir) {
      this(
          nodes,
          procedures,
          steps,
          clients,
          0,
          DEFAULT_WARMUP,
          keepDir,
          true,
          false,
          UNLIMITED_FAILURES);
    }

    /**
     * No bound on a phase's failed operations: the run reports them, and stops only when none
     * succeeds any more.
     */
    public static final int UNLIMITED_FAILURES = FailureTally.Limits.UNLIMITED;

    /**
     * The JIT of four JVMs sharing a small machine compiles for tens of seconds under load: after a
     * warm-up of a few hundred procedures, the nodes compiled another 1,600 methods during a 24 s
     * measurement of 64 clients, their compiler threads taking a third of their CPU.
     */
    public static final Duration DEFAULT_WARMUP = Duration.ofSeconds(20);

    public static final int DEFAULT_NODES = 3;
    public static final int DEFAULT_PROCEDURES = 2000;
    public static final int DEFAULT_STEPS = 3;
    public static final int DEFAULT_CLIENTS = 8;

    public boolean openLoop() {
      return rate > 0;
    }
  }

  private final Settings settings;
  private final PrintStream out;
  private final Path dir;
  private final ProcessCluster cluster;
  private final BenchReads reads;
  private final AtomicInteger nonces = new AtomicInteger();

  public Bench(Settings settings, PrintStream out) throws IOException {
    this.settings = settings;
    this.out = out;
    this.cluster =
        ProcessCluster.create("baton-bench", settings.keepDir(), List.of(), settings.tokens());
    this.dir = cluster.dir();
    this.reads = new BenchReads(cluster);
  }

  /** Starts the cluster, warms up, measures; prints progress, returns the figures. */
  public BenchResult run() throws IOException, InterruptedException {
    out.printf(
        "[bench] starting %d ConfigNodes in %s, %s%n",
        settings.nodes(),
        dir,
        settings.tokens()
            ? "secured (HTTPS with tokens, Raft over mutual TLS)"
            : "insecure (plain HTTP without tokens, plain Raft)");
    cluster.startConfigNodes(settings.nodes());
    String leader = cluster.awaitLeader(Set.of(), -1);
    String leaderHttp = cluster.httpAddresses().get(leader);
    // Clients list the leader first, as a well-configured client would; the read phase measures
    // what a follower costs.
    List<String> leaderFirst = new ArrayList<>(List.of(leaderHttp));
    cluster.httpAddresses().values().stream()
        .filter(a -> !a.equals(leaderHttp))
        .forEach(leaderFirst::add);
    // blocking exchanges on kept-alive connections: the JDK client's thread hand-offs cost the
    // bench about as much CPU per request as the node's handling, on the same cores
    NodeApiClient api = cluster.client(leaderFirst).withKeepAliveConnections();
    int warmup = Math.min(MAX_WARMUP, Math.max(1, settings.procedures() / WARMUP_DIVISOR));

    try (ProcedureClient raft = cluster.raftClient(ConfigNodeProcedures.registry());
        Load load =
            new Load(
                settings.clients(),
                settings.rate(),
                new FailureTally.Limits(
                    settings.maxFailures(), ConfigNodeWaits.BENCH_ALL_FAILING_LIMIT))) {
      out.printf(
          "[bench] leader %s; warm-up with %d empty commits, reads, then %d s of procedures%n",
          leader, warmup, settings.warmup().toSeconds());
      long warmupId = oneProcedure(api).procId(); // the procedure the warm-up reads
      Load.Run warmCommits = load.closedLoop(COMMIT_WARMUP, warmup, () -> emptyCommit(raft));
      // the read paths run nowhere else: unwarmed, their figures would be the JIT's (BenchReads)
      // a warm-up shorter than the default asks for a quick run (a smoke test), not figures
      boolean quick = settings.warmup().compareTo(Settings.DEFAULT_WARMUP) < 0;
      int minReads = quick ? Math.min(BenchReads.ROUND, warmup) : MIN_WARMUP_READS;
      int warmReads = reads.warm(leader, warmupId, minReads, settings.warmup(), !quick);
      out.printf("[bench] read warm-up: %d reads from the leader and a follower%n", warmReads);
      // procedures last, in the measured load's shape (the open loop's rate reached in a ramp),
      // right before it: the connections and threads it needs are open (a connection idle for
      // KeepAliveConnections' MAX_IDLE is closed), so the measured phase opens none itself
      // then, unless the run is quick, until the nodes' compilers go quiet: a measured phase that
      // starts while they compile measures the JIT, which takes a third of four JVMs' CPU for
      // tens of seconds under load on a small machine
      Duration fixed = quick ? settings.warmup() : settings.warmup().minus(JIT_LOOK);
      Load.Run warmProcedures =
          settings.openLoop()
              ? load.rampedOpenLoopFor(PROCEDURE_WARMUP, fixed, () -> oneProcedure(api))
              : load.closedLoopFor(PROCEDURE_WARMUP, fixed, () -> oneProcedure(api));
      out.printf(
          "[bench] procedure warm-up: %d procedures%s, %d connections opened so far%n",
          warmProcedures.count(),
          warmProcedures.failed() > 0 ? " (" + warmProcedures.failures().describe() + ")" : "",
          api.connectionsOpened());
      Load.Run warmJit = quick ? load.none(JIT_WARMUP) : untilJitQuiet(load, api);

      // the leader of now: after a leader change during the warm-ups, the executor, its counters
      // and its CPU are another node's than the first leader's
      String measuredLeader = cluster.awaitLeader(Set.of(), -1);
      if (!measuredLeader.equals(leader)) {
        out.printf(
            "[bench] the leader changed during the warm-up: %s (was %s)%n", measuredLeader, leader);
      }
      String measuredLeaderHttp = cluster.httpAddresses().get(measuredLeader);
      out.printf(
          "[bench] measuring %d procedures (%s)%n",
          settings.procedures(),
          settings.openLoop()
              ? "open loop, " + settings.rate() + "/s"
              : settings.clients() + " closed-loop clients");
      Map<String, Double> before = api.metrics(measuredLeaderHttp);
      long leaderPid = cluster.pid(measuredLeader);
      List<Long> followerPids =
          cluster.nodeIds().stream()
              .filter(id -> !id.equals(measuredLeader))
              .map(cluster::pid)
              .toList();
      CpuPerProcedure.Sample cpuBefore = CpuPerProcedure.Sample.now(leaderPid, followerPids);
      long connectionsBefore = api.connectionsOpened();
      Load.Run procedures =
          settings.openLoop()
              ? load.openLoop(PROCEDURES, settings.procedures(), () -> oneProcedure(api))
              : load.closedLoop(PROCEDURES, settings.procedures(), () -> oneProcedure(api));
      CpuPerProcedure cpu =
          CpuPerProcedure.Sample.now(leaderPid, followerPids).since(cpuBefore, procedures.count());
      long connectionsOpened = api.connectionsOpened() - connectionsBefore;
      Map<String, Double> after = before;
      try {
        after = api.metrics(measuredLeaderHttp);
        if (!api.cluster(measuredLeaderHttp).path("role").asText().equals("LEADER_RUNNING")) {
          out.println("[bench] warning: the leader changed during the run; rates are partial");
        }
      } catch (NodeApiClient.ApiException e) {
        // the run's figures stand without the leader's counters
        out.println(
            "[bench] warning: the leader of the run does not answer, its store batches and log"
                + " entries are not counted: "
                + e.getMessage());
      }

      out.printf(
          "[bench] raw Raft baseline: %d empty commits from %d clients%n",
          settings.procedures(), settings.clients());
      Load.Run raw = load.closedLoop(RAW_COMMITS, settings.procedures(), () -> emptyCommit(raft));

      // the warm-up's procedure if no measured one was submitted
      long readId = procedures.lastId() > 0 ? procedures.lastId() : warmupId;
      int readCount = Math.min(BenchReads.ROUND, settings.procedures());
      out.printf(
          "[bench] reads: procedure %d, %d from the leader and a follower%n", readId, readCount);
      // the leader of now: after a leader change the reads would compare two followers
      BenchReads.Times readTimes =
          reads.measure(cluster.awaitLeader(Set.of(), -1), readId, readCount);

      return new BenchResult(
          settings,
          procedures.wallSeconds(),
          procedures.succeeded() / procedures.wallSeconds(),
          delta(before, after, STORE_BATCHES) / procedures.wallSeconds(),
          delta(before, after, LOG_ENTRIES) / procedures.wallSeconds(),
          procedures.latencies(),
          settings.submitThenWait() ? procedures.submitLatencies() : null,
          raw.succeeded() / raw.wallSeconds(),
          raw.latencies(),
          readTimes.leader(),
          readTimes.follower(),
          cpu,
          connectionsOpened,
          procedures.failed(),
          List.of(
              warmCommits.failures(),
              warmProcedures.failures(),
              warmJit.failures(),
              procedures.failures(),
              raw.failures()));
    }
  }

  /**
   * Procedures in the measured load's shape until the busiest node's JIT compilers used less than
   * {@link #JIT_QUIET_SHARE} of a core over the last {@link #JIT_LOOK}, or for {@link
   * #JIT_WARMUPS_AT_MOST} warm-ups at most; says which.
   */
  private Load.Run untilJitQuiet(Load load, NodeApiClient api)
      throws IOException, InterruptedException {
    List<Long> pids = cluster.nodeIds().stream().map(cluster::pid).toList();
    JitActivity.UntilQuiet compiling =
        new JitActivity.UntilQuiet(
            new JitActivity.Watch(pids),
            JIT_LOOK,
            JIT_QUIET_SHARE,
            settings.warmup().multipliedBy(JIT_WARMUPS_AT_MOST));
    Load.Run run =
        settings.openLoop()
            ? load.openLoopWhile(JIT_WARMUP, compiling, () -> oneProcedure(api))
            : load.closedLoopWhile(JIT_WARMUP, compiling, () -> oneProcedure(api));
    String outcome;
    if (compiling.lastShare().isEmpty()) {
      outcome = "the compilers' CPU time is not readable here (Linux' /proc)";
    } else if (compiling.quiet()) {
      outcome =
          String.format(
              Locale.ROOT,
              "until the busiest node's compilers used %.0f %% of a core (under %.0f %%)",
              compiling.lastShare().get() * PERCENT,
              JIT_QUIET_SHARE * PERCENT);
    } else {
      outcome =
          String.format(
              Locale.ROOT,
              "stopped at its bound with the busiest node's compilers at %.0f %% of a core: the"
                  + " measured phase shares the CPU with the JIT",
              compiling.lastShare().get() * PERCENT);
    }
    out.printf(
        Locale.ROOT,
        "[bench] JIT warm-up: %.1f s, %d procedures, %s%n",
        run.wallSeconds(),
        run.count(),
        outcome);
    return run;
  }

  /**
   * One procedure until it finished: submitted and awaited in one request, or (with {@code
   * submitThenWait}) submitted, then long polled.
   */
  private Load.Sample oneProcedure(NodeApiClient api) throws IOException, InterruptedException {
    JsonNode args = Json.LENIENT.createObjectNode().put("steps", settings.steps());
    long nonce = nonces.incrementAndGet();
    Duration patience = ConfigNodeWaits.BENCH_PROCEDURE_PATIENCE;
    long start = System.nanoTime();
    long submitNanos = 0;
    JsonNode view;
    if (settings.submitThenWait()) {
      long id = api.retrying(() -> api.submit("Noop", args, NONCE_GROUP, nonce));
      submitNanos = System.nanoTime() - start;
      view = api.awaitFinished(id, patience);
    } else {
      view = api.retrying(() -> api.submitAndAwait("Noop", args, NONCE_GROUP, nonce, patience));
    }
    long id = view.path("procId").asLong();
    String state = view.path("state").asText();
    // without the procedure's id: the report counts the failures by message
    if (!view.path("finished").asBoolean()) {
      return Load.Sample.failed(id, submitNanos, "not finished after " + patience + ", " + state);
    }
    return "SUCCESS".equals(state)
        ? Load.Sample.succeeded(id, submitNanos)
        : Load.Sample.failed(id, submitNanos, "ended " + state);
  }

  private static Load.Sample emptyCommit(ProcedureClient raft) throws IOException {
    raft.commitEmpty();
    return Load.Sample.succeeded(0, 0);
  }

  private static double delta(Map<String, Double> before, Map<String, Double> after, String name) {
    return after.getOrDefault(name, 0.0) - before.getOrDefault(name, 0.0);
  }

  /** Kills the processes; deletes the directory unless kept. */
  @Override
  public void close() {
    cluster.close();
    if (settings.keepDir()) {
      out.println("kept " + dir);
    }
  }
}
