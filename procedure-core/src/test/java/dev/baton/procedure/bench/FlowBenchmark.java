package dev.baton.procedure.bench;

import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.flow.FlowDefinition;
import dev.baton.procedure.flow.FlowInfo;
import dev.baton.procedure.flow.FlowRuntime;
import dev.baton.procedure.flow.FlowState;
import dev.baton.procedure.flow.Flows;
import dev.baton.procedure.flow.NodeSpec;
import dev.baton.procedure.store.InMemoryProcedureStore;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Workflow benchmark (not a test), on an in-memory store so the flow layer's own cost shows.
 *
 * <ol>
 *   <li>Fan-out/fan-in: a {@code bench.flow.nodes}-node DAG (start → n-2 parallel nodes → end),
 *       each node a 3-step {@link NoopSteps} task; nodes/s from submission to FINISH. Baseline in
 *       the same round: the same number of plain NoopSteps procedures submitted at once; reported
 *       as the ratio flow nodes/s ÷ plain procedures/s. Each round runs both {@code
 *       bench.flow.dagRuns} (default 5) times, interleaved, each on a fresh executor, and counts
 *       their total time (one 1,000-node run lasts tens of milliseconds: a single GC pause would
 *       halve it).
 *   <li>Stream: {@code bench.flow.appends} nodes appended by 8 threads, 5 per append, to one stream
 *       flow; appended nodes/s (until that many were acknowledged, i.e. durably in the flow) and
 *       run nodes/s (until the chain has run).
 *   <li>Stream growth: the same with {@code bench.flow.streamNodes} (default 10,000) nodes; the
 *       time per appended node (acknowledged appends, all threads together) over the first 1,000
 *       nodes and over the last 1,000, and last ÷ first. An append must not get dearer as its chain
 *       grows: the ratio should stay near 1.
 * </ol>
 *
 * Run from the repository root:
 *
 * <pre>
 * mvn -B -q -pl procedure-core -am test-compile exec:java@bench-flow
 * </pre>
 *
 * The environment's window starts with no permits: finished tasks only add to it (it bounds nothing
 * here).
 *
 * <p>Figures are medians of {@code bench.rounds} (default 3) rounds, after {@code
 * bench.flow.warmupRounds} (default 1) unmeasured rounds of the DAG, the plain procedures and the
 * stream: a 1,000-node DAG runs for tens of milliseconds, so in a cold JVM it would measure the JIT
 * (and the plain run after it would find the executor's code compiled by the DAG's tasks). The load
 * average is printed.
 */
public final class FlowBenchmark {
  private static final int WORKERS = 4;
  private static final int PRODUCERS = 8;
  private static final int PER_APPEND = 5;
  private static final Duration WAIT = Duration.ofMinutes(10);
  private static final long POLL_MILLIS = 20;

  /** Nodes at each end of the growth stream whose time per append is compared. */
  private static final int GROWTH_WINDOW = 1_000;

  private final int nodes = Integer.getInteger("bench.flow.nodes", 1_000);
  private final int appends = Integer.getInteger("bench.flow.appends", 2_000);
  private final int streamNodes = Integer.getInteger("bench.flow.streamNodes", 10_000);
  private final int rounds = Integer.getInteger("bench.rounds", 3);
  private final int warmupRounds = Integer.getInteger("bench.flow.warmupRounds", 1);
  private final int dagRuns = Integer.getInteger("bench.flow.dagRuns", 5);
  private final PrintStream out = System.out;

  private FlowBenchmark() {}

  public static void main(String[] args) throws Exception {
    new FlowBenchmark().run();
  }

  private record Setup(BenchEnv env, ProcedureExecutor<BenchEnv> executor, Flows<BenchEnv> flows) {}

  private static Setup start() throws Exception {
    BenchEnv env = new BenchEnv(0);
    ProcedureRegistry registry =
        new ProcedureRegistry().register(NoopSteps.TYPE, NoopSteps.class, NoopSteps::new);
    FlowRuntime<BenchEnv> runtime =
        new FlowRuntime<BenchEnv>(registry).task(NoopSteps.TYPE, args -> new NoopSteps());
    ProcedureExecutor<BenchEnv> executor =
        ProcedureExecutor.builder(env, new InMemoryProcedureStore(), registry)
            .coreWorkers(WORKERS)
            .maxWorkers(WORKERS)
            .completedRetention(Duration.ofMinutes(10))
            .build();
    runtime.bind(executor);
    executor.start();
    return new Setup(env, executor, new Flows<>(runtime, WAIT));
  }

  private void run() throws Exception {
    if (streamNodes < 2 * GROWTH_WINDOW) {
      throw new IllegalArgumentException(
          "bench.flow.streamNodes must be at least " + 2 * GROWTH_WINDOW + ", got " + streamNodes);
    }
    var os = ManagementFactory.getOperatingSystemMXBean();
    out.printf(
        Locale.ROOT,
        "flow benchmark: %d cpus, load average %.2f, java %s, %d-node DAG, %d appended nodes,"
            + " %d-node growth stream, %d warm-up and %d measured rounds, %d DAG runs per round,"
            + " %d workers%n",
        os.getAvailableProcessors(),
        os.getSystemLoadAverage(),
        System.getProperty("java.version"),
        nodes,
        appends,
        streamNodes,
        warmupRounds,
        rounds,
        dagRuns,
        WORKERS);
    for (int r = 0; r < warmupRounds; r++) {
      for (int k = 0; k < dagRuns; k++) {
        fanOutFanIn();
        plainProcedures();
      }
      stream("warmup" + r, appends);
      System.err.printf(Locale.ROOT, "warm-up round %d done%n", r + 1);
    }
    double[] dag = new double[rounds];
    double[] plain = new double[rounds];
    double[] ratio = new double[rounds];
    double[] appended = new double[rounds];
    double[] ran = new double[rounds];
    double[] firstMicros = new double[rounds];
    double[] lastMicros = new double[rounds];
    double[] growth = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      long dagNanos = 0;
      long plainNanos = 0;
      // interleaved, so a GC pause or a busy neighbour hits both
      for (int k = 0; k < dagRuns; k++) {
        dagNanos += fanOutFanIn();
        plainNanos += plainProcedures();
      }
      dag[r] = (double) dagRuns * nodes / (dagNanos / 1e9);
      plain[r] = (double) dagRuns * nodes / (plainNanos / 1e9);
      ratio[r] = dag[r] / plain[r];
      StreamRun s = stream("round" + r, appends);
      appended[r] = s.appendedPerSec();
      ran[r] = s.runPerSec();
      StreamRun g = stream("growth" + r, streamNodes);
      firstMicros[r] = g.microsPerNode(0, GROWTH_WINDOW);
      lastMicros[r] = g.microsPerNode(g.measured() - GROWTH_WINDOW, g.measured());
      growth[r] = lastMicros[r] / firstMicros[r];
      System.err.printf(Locale.ROOT, "round %d done%n", r + 1);
    }
    out.printf(Locale.ROOT, "%-44s %14s%n", "measure", "median");
    row("fan-out/fan-in DAG nodes/s", median(dag));
    row("plain procedures/s (same tasks)", median(plain));
    row("DAG nodes/s / plain procedures/s", median(ratio));
    row("stream appended nodes/s (8 threads)", median(appended));
    row("stream chain run nodes/s", median(ran));
    row("growth stream us/appended node, first 1,000", median(firstMicros));
    row("growth stream us/appended node, last 1,000", median(lastMicros));
    row("growth stream last / first", median(growth));
    out.printf(
        Locale.ROOT,
        "{\"dagNodesPerSec\":%.1f,\"plainPerSec\":%.1f,\"dagOverPlain\":%.3f,"
            + "\"streamAppendedPerSec\":%.1f,\"streamRunPerSec\":%.1f,"
            + "\"streamNodes\":%d,\"streamFirstMicrosPerNode\":%.1f,"
            + "\"streamLastMicrosPerNode\":%.1f,\"streamLastOverFirst\":%.3f}%n",
        median(dag),
        median(plain),
        median(ratio),
        median(appended),
        median(ran),
        streamNodes,
        median(firstMicros),
        median(lastMicros),
        median(growth));
  }

  private void row(String name, double v) {
    out.printf(Locale.ROOT, "%-44s %14.2f%n", name, v);
  }

  /** Runs the DAG once; returns the nanoseconds from its submission to its FINISH. */
  private long fanOutFanIn() throws Exception {
    Setup s = start();
    try {
      FlowDefinition.Builder b =
          FlowDefinition.builder().node(NodeSpec.of("start", NoopSteps.TYPE));
      b.node(NodeSpec.of("end", NoopSteps.TYPE));
      for (int i = 0; i < nodes - 2; i++) {
        String name = "n" + i;
        b.node(NodeSpec.of(name, NoopSteps.TYPE)).edge("start", name).edge(name, "end");
      }
      FlowDefinition def = b.build();
      long t0 = System.nanoTime();
      long id = s.flows().submit(def);
      FlowInfo done = s.flows().await(id, WAIT);
      long t1 = System.nanoTime();
      if (done.state() != FlowState.FINISH) {
        throw new IllegalStateException("flow did not finish: " + done.state());
      }
      return t1 - t0;
    } finally {
      s.executor().stop();
    }
  }

  /**
   * Runs the plain procedures once; returns the nanoseconds from the first submission to the last
   * end.
   */
  private long plainProcedures() throws Exception {
    Setup s = start();
    try {
      long t0 = System.nanoTime();
      long[] ids = new long[nodes];
      for (int i = 0; i < nodes; i++) {
        ids[i] = s.executor().submit(new NoopSteps());
      }
      for (long id : ids) {
        s.executor().await(id, WAIT);
      }
      return System.nanoTime() - t0;
    } finally {
      s.executor().stop();
    }
  }

  /**
   * One stream run: when it started, when each append was acknowledged (sorted; each append carries
   * {@link #PER_APPEND} nodes), how many nodes are measured, and when the chain had run.
   */
  private record StreamRun(long startNanos, long[] ackNanos, int measured, long ranNanos) {
    double appendedPerSec() {
      return measured / seconds(startNanos, ackNanos[measured / PER_APPEND - 1]);
    }

    double runPerSec() {
      return ackNanos.length * PER_APPEND / seconds(startNanos, ranNanos);
    }

    /** Microseconds per node appended from node {@code from} to node {@code to}. */
    double microsPerNode(int from, int to) {
      long begin = from == 0 ? startNanos : ackNanos[from / PER_APPEND - 1];
      long end = ackNanos[to / PER_APPEND - 1];
      return (end - begin) / 1e3 / (to - from);
    }
  }

  /**
   * Appends {@code nodes} nodes from {@link #PRODUCERS} threads and waits until the chain has run.
   * Each thread appends until {@code nodes} are acknowledged, so every measured append ran among
   * all of them (a thread that finished early would leave the last appends less company); the few
   * appends past {@code nodes} are run but not measured.
   */
  private StreamRun stream(String group, int nodes) throws Exception {
    int measured = nodes / PER_APPEND * PER_APPEND;
    if (measured == 0) {
      throw new IllegalArgumentException("a stream needs at least " + PER_APPEND + " nodes");
    }
    Setup s = start();
    ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
    long[] acks = new long[measured / PER_APPEND + PRODUCERS];
    AtomicInteger acked = new AtomicInteger();
    try {
      long t0 = System.nanoTime();
      List<Future<Long>> done = new ArrayList<>();
      for (int p = 0; p < PRODUCERS; p++) {
        int producer = p;
        done.add(
            producers.submit(
                () -> {
                  long id = 0;
                  for (int k = 0; acked.get() * PER_APPEND < measured; k += PER_APPEND) {
                    List<NodeSpec> batch = new ArrayList<>(PER_APPEND);
                    for (int j = k; j < k + PER_APPEND; j++) {
                      batch.add(NodeSpec.of("p" + producer + "-" + j, NoopSteps.TYPE));
                    }
                    id = s.flows().append("bench", group, batch);
                    acks[acked.getAndIncrement()] = System.nanoTime();
                  }
                  return id;
                }));
      }
      long id = 0;
      for (Future<Long> f : done) {
        id = Math.max(id, f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
      }
      long[] sorted = Arrays.copyOf(acks, acked.get());
      Arrays.sort(sorted);
      int total = sorted.length * PER_APPEND;
      // the chain's tasks are counted as they finish; the flow's view (a decode of its whole
      // record) is read only after that, so waiting takes no CPU from the chain
      while (s.env().finished.sum() < total) {
        if (seconds(t0, System.nanoTime()) > WAIT.toSeconds()) {
          throw new IllegalStateException("stream did not run in " + WAIT);
        }
        TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
      }
      while (true) {
        FlowInfo f = s.flows().get(id).orElseThrow();
        if (f.state() == FlowState.FINISH && f.folded().nodes() + f.nodes().size() == total) {
          break;
        }
        if (seconds(t0, System.nanoTime()) > WAIT.toSeconds()) {
          throw new IllegalStateException("stream did not run in " + WAIT);
        }
        TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
      }
      return new StreamRun(t0, sorted, measured, System.nanoTime());
    } finally {
      producers.shutdownNow();
      s.executor().stop();
    }
  }

  private static double seconds(long t0, long t1) {
    return (t1 - t0) / 1e9;
  }

  private static double median(double[] v) {
    double[] c = v.clone();
    Arrays.sort(c);
    return c[c.length / 2];
  }
}
