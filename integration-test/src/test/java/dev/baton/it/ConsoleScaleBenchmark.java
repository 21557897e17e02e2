package dev.baton.it;

import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.cluster.ProcessCluster;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The console's figures at scale, on a local secured 3-ConfigNode process cluster, in one run: with
 * N live procedures (one-hour Sleeps), the latency of {@code GET /api/procedures?limit=100} and of
 * the procedures page's own data call ({@code limit=50&after=0&notState=SUCCESS}) on the leader and
 * a follower; then the executor's throughput (closed-loop clients submitting Noops of a few steps
 * and long-polling each to its end) without watchers, with 10 watchers of {@code GET /api/events}
 * on the leader (counting the changes each receives), and without again. Not a test: run it by hand
 * with the jar on the class path (its child processes run from the class path):
 *
 * <pre>
 * mvn -B -q -pl integration-test -am verify -DskipTests
 * java -cp integration-test/target/test-classes:confignode-sim/target/confignode-sim.jar \
 *   dev.baton.it.ConsoleScaleBenchmark [LIVE_PROCEDURES, default 100000] [PHASE_SECONDS, default 20]
 * </pre>
 *
 * The page figure is its data call only: its static files are the same whatever the cluster holds.
 */
public final class ConsoleScaleBenchmark {
  static final int DEFAULT_LIVE = 100_000;
  static final int DEFAULT_PHASE_SECONDS = 20;

  /** Requests timed per list figure. */
  static final int LIST_SAMPLES = 50;

  static final String LIST_PATH = "/api/procedures?limit=100";
  static final String PAGE_PATH = "/api/procedures?limit=50&after=0&notState=SUCCESS";

  /** Watchers of the events stream in the middle phase. */
  static final int WATCHERS = 10;

  /** Closed-loop clients of the throughput phases. */
  static final int CLIENTS = 8;

  /** Steps of each Noop of the throughput phases: each step is one change on the stream. */
  static final int NOOP_STEPS = 5;

  static final Duration FINISH_PATIENCE = Duration.ofMinutes(2);
  static final long NANOS_PER_MILLI = 1_000_000;
  static final double NANOS_PER_SECOND = 1e9;
  static final double P50 = 0.50;
  static final double P99 = 0.99;
  static final String PROCEDURE_EVENT = "event: procedure";

  private ConsoleScaleBenchmark() {}

  public static void main(String[] args) throws Exception {
    int live = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_LIVE;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : DEFAULT_PHASE_SECONDS;
    try (ProcessCluster cluster = ProcessCluster.start(3, 0, false)) {
      long start = System.nanoTime();
      MembershipCatchUpBenchmark.load(cluster, live);
      System.out.printf(
          Locale.ROOT,
          "%d live procedures submitted in %.1f s%n",
          live,
          (System.nanoTime() - start) / NANOS_PER_SECOND);
      String leader = cluster.leader();
      String follower =
          cluster.nodeIds().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
      for (String node : List.of(leader, follower)) {
        String role = node.equals(leader) ? "leader" : "follower";
        NodeApiClient api = cluster.directClient(node);
        System.out.println("GET " + LIST_PATH + " on the " + role + ": " + timed(api, LIST_PATH));
        System.out.println("procedures page data on the " + role + ": " + timed(api, PAGE_PATH));
      }

      Throughput before = throughput(cluster, seconds);
      List<Watcher> watchers = new ArrayList<>();
      Throughput watched;
      try {
        for (int i = 0; i < WATCHERS; i++) {
          watchers.add(Watcher.open(cluster, leader));
        }
        long[] counted = new long[WATCHERS];
        for (int i = 0; i < WATCHERS; i++) {
          counted[i] = watchers.get(i).events.get();
        }
        watched = throughput(cluster, seconds);
        long least = Long.MAX_VALUE;
        for (int i = 0; i < WATCHERS; i++) {
          least = Math.min(least, watchers.get(i).events.get() - counted[i]);
        }
        System.out.printf(
            Locale.ROOT,
            "%d watchers: the slowest received %d changes in %.1f s, %.0f changes/s%n",
            WATCHERS,
            least,
            watched.seconds,
            least / watched.seconds);
      } finally {
        for (Watcher w : watchers) {
          w.close();
        }
      }
      Throughput after = throughput(cluster, seconds);
      double base = (before.perSecond() + after.perSecond()) / 2;
      System.out.println("without watchers (before): " + before);
      System.out.println("with " + WATCHERS + " watchers:        " + watched);
      System.out.println("without watchers (after):  " + after);
      System.out.printf(
          Locale.ROOT,
          "throughput with watchers / without (mean of before and after): %.3f%n",
          watched.perSecond() / base);
    }
  }

  /** Procedures finished in a phase and how long it took. */
  private record Throughput(long procedures, double seconds) {
    double perSecond() {
      return procedures / seconds;
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%d Noops of %d steps in %.1f s: %.1f procedures/s",
          procedures,
          NOOP_STEPS,
          seconds,
          perSecond());
    }
  }

  /** {@link #CLIENTS} clients each submit a Noop and wait for its end, for {@code seconds}. */
  private static Throughput throughput(ProcessCluster cluster, int seconds) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong done = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    long start = System.nanoTime();
    try {
      List<Future<?>> clients = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        clients.add(
            pool.submit(
                () -> {
                  while (!stop.get()) {
                    long id =
                        cluster
                            .procedures()
                            .submit("Noop", ClusterProcedures.args("steps", NOOP_STEPS));
                    cluster.api().awaitFinished(id, FINISH_PATIENCE);
                    done.incrementAndGet();
                  }
                  return null;
                }));
      }
      Thread.sleep(Duration.ofSeconds(seconds).toMillis()); // the phase's length, not a sync
      long counted = done.get();
      double elapsed = (System.nanoTime() - start) / NANOS_PER_SECOND;
      stop.set(true);
      for (Future<?> f : clients) {
        f.get();
      }
      return new Throughput(counted, elapsed);
    } finally {
      pool.shutdownNow();
    }
  }

  /** p50, p99 and max of {@link #LIST_SAMPLES} GETs of {@code path}. */
  private static String timed(NodeApiClient api, String path) throws Exception {
    api.get(path); // warm the connection
    List<Long> nanos = new ArrayList<>();
    for (int i = 0; i < LIST_SAMPLES; i++) {
      long t0 = System.nanoTime();
      api.get(path);
      nanos.add(System.nanoTime() - t0);
    }
    Collections.sort(nanos);
    return String.format(
        Locale.ROOT,
        "p50 %.1f ms, p99 %.1f ms, max %.1f ms",
        at(nanos, P50),
        at(nanos, P99),
        nanos.get(nanos.size() - 1) / (double) NANOS_PER_MILLI);
  }

  private static double at(List<Long> sorted, double q) {
    return sorted.get((int) Math.min(sorted.size() - 1, Math.floor(q * sorted.size())))
        / (double) NANOS_PER_MILLI;
  }

  /** One watcher of the events stream: a thread counting the procedure changes it reads. */
  private static final class Watcher implements AutoCloseable {
    final AtomicLong events = new AtomicLong();
    private final InputStream body;

    private Watcher(InputStream body) {
      this.body = body;
      Thread reader = new Thread(this::read, "bench-watcher");
      reader.setDaemon(true);
      reader.start();
    }

    static Watcher open(ProcessCluster cluster, String node) throws Exception {
      return new Watcher(
          cluster
              .directClient(node)
              .openEventStream(cluster.http(node), "/api/events", Optional.empty()));
    }

    private void read() {
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          if (line.equals(PROCEDURE_EVENT)) {
            events.incrementAndGet();
          }
        }
      } catch (java.io.IOException e) {
        // closed: the watch ends
      }
    }

    @Override
    public void close() throws java.io.IOException {
      body.close();
    }
  }
}
