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
 * a follower; then, after a warm-up phase, the executor's throughput (closed-loop clients
 * submitting Noops of a few steps and long-polling each to its end) in {@link #ROUNDS} rounds of a
 * phase without watchers and one with 10 watchers of {@code GET /api/events} on the leader
 * (counting the changes the slowest receives), alternating so that a drift of the machine's load
 * falls on both alike. Not a test: run it by hand with the jar on the class path (its child
 * processes run from the class path):
 *
 * <pre>
 * mvn -B -q -pl integration-test -am verify -DskipTests
 * java -cp integration-test/target/test-classes:confignode-sim/target/confignode-sim.jar \
 *   dev.baton.it.ConsoleScaleBenchmark [LIVE_PROCEDURES, default 100000] [PHASE_SECONDS, default 20] \
 *   [leader|follower: where the watchers watch, default leader]
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

  /** The third argument that puts the watchers on a follower instead of the leader. */
  static final String ON_FOLLOWER = "follower";

  /** Watchers of the events stream in the middle phase. */
  static final int WATCHERS = 10;

  /** Rounds of a phase without watchers then one with them. */
  static final int ROUNDS = 3;

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

      String watchOn = args.length > 2 && args[2].equals(ON_FOLLOWER) ? follower : leader;
      System.out.println("watchers on the " + (watchOn.equals(leader) ? "leader" : "follower"));
      throughput(cluster, seconds); // warm-up, not counted
      long without = 0;
      long with = 0;
      double withoutSeconds = 0;
      double withSeconds = 0;
      for (int round = 1; round <= ROUNDS; round++) {
        Throughput alone = throughput(cluster, seconds);
        Throughput watched = watched(cluster, watchOn, seconds);
        System.out.println("round " + round + " without watchers: " + alone);
        System.out.println("round " + round + " with " + WATCHERS + " watchers: " + watched);
        without += alone.procedures;
        withoutSeconds += alone.seconds;
        with += watched.procedures;
        withSeconds += watched.seconds;
      }
      System.out.printf(
          Locale.ROOT,
          "throughput with %d watchers / without, over %d alternating rounds: %.3f%n",
          WATCHERS,
          ROUNDS,
          (with / withSeconds) / (without / withoutSeconds));
    }
  }

  /** A throughput phase with {@link #WATCHERS} watchers on {@code node}; prints what they got. */
  private static Throughput watched(ProcessCluster cluster, String node, int seconds)
      throws Exception {
    List<Watcher> watchers = new ArrayList<>();
    try {
      for (int i = 0; i < WATCHERS; i++) {
        watchers.add(Watcher.open(cluster, node));
      }
      Throughput t = throughput(cluster, seconds);
      long least = Long.MAX_VALUE;
      for (Watcher w : watchers) {
        least = Math.min(least, w.events.get());
      }
      System.out.printf(
          Locale.ROOT,
          "%d watchers: the slowest received %d changes in %.1f s, %.0f changes/s%n",
          WATCHERS,
          least,
          t.seconds,
          least / t.seconds);
      return t;
    } finally {
      for (Watcher w : watchers) {
        w.close();
      }
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
