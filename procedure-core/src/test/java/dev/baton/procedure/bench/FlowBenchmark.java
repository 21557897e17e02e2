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

/**
 * Workflow benchmark (not a test), on an in-memory store so the flow layer's own cost shows.
 *
 * <ol>
 *   <li>Fan-out/fan-in: a {@code bench.flow.nodes}-node DAG (start → n-2 parallel nodes → end),
 *       each node a 3-step {@link NoopSteps} task; nodes/s from submission to FINISH. Baseline in
 *       the same round: the same number of plain NoopSteps procedures submitted at once; reported
 *       as the ratio flow nodes/s ÷ plain procedures/s.
 *   <li>Stream: {@code bench.flow.appends} nodes appended by 8 threads, 5 per append, to one stream
 *       flow; appended nodes/s (until every append was acknowledged, i.e. durably in the flow) and
 *       run nodes/s (until the chain has run).
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
 * <p>Figures are medians of {@code bench.rounds} (default 3) rounds; the load average is printed.
 */
public final class FlowBenchmark {
  private static final int WORKERS = 4;
  private static final int PRODUCERS = 8;
  private static final int PER_APPEND = 5;
  private static final Duration WAIT = Duration.ofMinutes(10);

  private final int nodes = Integer.getInteger("bench.flow.nodes", 1_000);
  private final int appends = Integer.getInteger("bench.flow.appends", 2_000);
  private final int rounds = Integer.getInteger("bench.rounds", 3);
  private final PrintStream out = System.out;

  private FlowBenchmark() {}

  public static void main(String[] args) throws Exception {
    new FlowBenchmark().run();
  }

  private record Setup(ProcedureExecutor<BenchEnv> executor, Flows<BenchEnv> flows) {}

  private static Setup start() throws Exception {
    ProcedureRegistry registry =
        new ProcedureRegistry().register(NoopSteps.TYPE, NoopSteps.class, NoopSteps::new);
    FlowRuntime<BenchEnv> runtime =
        new FlowRuntime<BenchEnv>(registry).task(NoopSteps.TYPE, args -> new NoopSteps());
    ProcedureExecutor<BenchEnv> executor =
        ProcedureExecutor.builder(new BenchEnv(0), new InMemoryProcedureStore(), registry)
            .coreWorkers(WORKERS)
            .maxWorkers(WORKERS)
            .completedRetention(Duration.ofMinutes(10))
            .build();
    runtime.bind(executor);
    executor.start();
    return new Setup(executor, new Flows<>(runtime, WAIT));
  }

  private void run() throws Exception {
    var os = ManagementFactory.getOperatingSystemMXBean();
    out.printf(
        Locale.ROOT,
        "flow benchmark: %d cpus, load average %.2f, java %s, %d-node DAG, %d appended nodes,"
            + " %d rounds, %d workers%n",
        os.getAvailableProcessors(),
        os.getSystemLoadAverage(),
        System.getProperty("java.version"),
        nodes,
        appends,
        rounds,
        WORKERS);
    double[] dag = new double[rounds];
    double[] plain = new double[rounds];
    double[] ratio = new double[rounds];
    double[] appended = new double[rounds];
    double[] ran = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      dag[r] = fanOutFanIn();
      plain[r] = plainProcedures();
      ratio[r] = dag[r] / plain[r];
      double[] s = stream(r);
      appended[r] = s[0];
      ran[r] = s[1];
      System.err.printf(Locale.ROOT, "round %d done%n", r + 1);
    }
    out.printf(Locale.ROOT, "%-44s %14s%n", "measure", "median");
    row("fan-out/fan-in DAG nodes/s", median(dag));
    row("plain procedures/s (same tasks)", median(plain));
    row("DAG nodes/s / plain procedures/s", median(ratio));
    row("stream appended nodes/s (8 threads)", median(appended));
    row("stream chain run nodes/s", median(ran));
    out.printf(
        Locale.ROOT,
        "{\"dagNodesPerSec\":%.1f,\"plainPerSec\":%.1f,\"dagOverPlain\":%.3f,"
            + "\"streamAppendedPerSec\":%.1f,\"streamRunPerSec\":%.1f}%n",
        median(dag),
        median(plain),
        median(ratio),
        median(appended),
        median(ran));
  }

  private void row(String name, double v) {
    out.printf(Locale.ROOT, "%-44s %14.2f%n", name, v);
  }

  private double fanOutFanIn() throws Exception {
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
      return nodes / seconds(t0, t1);
    } finally {
      s.executor().stop();
    }
  }

  private double plainProcedures() throws Exception {
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
      return nodes / seconds(t0, System.nanoTime());
    } finally {
      s.executor().stop();
    }
  }

  private double[] stream(int round) throws Exception {
    Setup s = start();
    ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
    try {
      long t0 = System.nanoTime();
      List<Future<Long>> done = new ArrayList<>();
      int perProducer = appends / PRODUCERS;
      for (int p = 0; p < PRODUCERS; p++) {
        int producer = p;
        done.add(
            producers.submit(
                () -> {
                  long id = 0;
                  for (int k = 0; k < perProducer; k += PER_APPEND) {
                    List<NodeSpec> batch = new ArrayList<>(PER_APPEND);
                    for (int j = k; j < k + PER_APPEND; j++) {
                      batch.add(NodeSpec.of("p" + producer + "-" + j, NoopSteps.TYPE));
                    }
                    id = s.flows().append("bench", "round" + round, batch);
                  }
                  return id;
                }));
      }
      long id = 0;
      for (Future<Long> f : done) {
        id = f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      }
      long t1 = System.nanoTime();
      int total = perProducer * PRODUCERS;
      while (true) {
        FlowInfo f = s.flows().get(id).orElseThrow();
        if (f.state() == FlowState.FINISH && f.nodes().size() == total) {
          break;
        }
        if (seconds(t0, System.nanoTime()) > WAIT.toSeconds()) {
          throw new IllegalStateException("stream did not run in " + WAIT);
        }
        TimeUnit.MILLISECONDS.sleep(20);
      }
      long t2 = System.nanoTime();
      return new double[] {total / seconds(t0, t1), total / seconds(t0, t2)};
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
