package dev.baton.confignode.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.procedure.util.Poll;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The ConfigNode benchmark: a local cluster of ConfigNode processes (no DataNodes), {@code workers}
 * concurrent clients each submitting Noop procedures of {@code steps} steps through the admin API
 * and waiting for each to finish before the next (a closed loop), {@code procedures} in all after a
 * warm-up. Measures procedures/s, the leader's store batches and log entries per second (from its
 * {@code /metrics}), and the submit-to-done latency of each procedure (its last store update on the
 * leader minus the client's submit time). A client learns that its procedure finished by polling
 * {@code GET /api/procedures/ID} with a backoff from {@link ConfigNodeWaits#BENCH_FIRST_POLL} to
 * {@link ConfigNodeWaits#BENCH_MAX_POLL}; those reads are part of the load.
 */
public final class Bench implements AutoCloseable {
  /** Nonce group of the bench's submissions. */
  static final long NONCE_GROUP = 0xbe7c;

  /**
   * Warm-up procedures (not measured): this fraction (1/10) of the run, at most {@link
   * #MAX_WARMUP}.
   */
  static final int WARMUP_DIVISOR = 10;

  static final int MAX_WARMUP = 500;

  static final String STORE_BATCHES = "baton_applied_store_batches_total";
  static final String LOG_ENTRIES = "baton_applied_write_entries_total";

  static final double PERCENT_50 = 0.50;
  static final double PERCENT_99 = 0.99;
  static final double PERCENT_999 = 0.999;

  /**
   * What to run.
   *
   * @param nodes ConfigNode processes
   * @param procedures procedures measured
   * @param steps steps of each Noop
   * @param workers concurrent clients
   * @param keepDir keep the temp dir (logs, data)
   */
  public record Settings(
      int nodes, int procedures, int steps, int workers, boolean keepDir, boolean tokens) {
    /** Secured (tokens, Raft over mutual TLS), as every local cluster by default. */
    public Settings(int nodes, int procedures, int steps, int workers, boolean keepDir) {
      this(nodes, procedures, steps, workers, keepDir, true);
    }

    public static final int DEFAULT_NODES = 3;
    public static final int DEFAULT_PROCEDURES = 2000;
    public static final int DEFAULT_STEPS = 3;
    public static final int DEFAULT_WORKERS = 8;
  }

  private final Settings settings;
  private final PrintStream out;
  private final Path dir;
  private final ProcessCluster cluster;
  private final AtomicInteger nonces = new AtomicInteger();

  public Bench(Settings settings, PrintStream out) throws IOException {
    this.settings = settings;
    this.out = out;
    this.cluster =
        ProcessCluster.create("baton-bench", settings.keepDir(), List.of(), settings.tokens());
    this.dir = cluster.dir();
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
    // Clients list the leader first, as a well-configured client would: a follower answers reads
    // too, but each one waits for a read index from the leader (tens of ms on a loaded machine).
    List<String> leaderFirst = new ArrayList<>(List.of(leaderHttp));
    cluster.httpAddresses().values().stream()
        .filter(a -> !a.equals(leaderHttp))
        .forEach(leaderFirst::add);
    NodeApiClient api = cluster.client(leaderFirst);
    int warmup = Math.min(MAX_WARMUP, Math.max(1, settings.procedures() / WARMUP_DIVISOR));
    out.printf("[bench] leader %s; warm-up with %d procedures%n", leader, warmup);
    runProcedures(api, warmup);

    out.printf("[bench] measuring %d procedures%n", settings.procedures());
    Map<String, Double> before = api.metrics(leaderHttp);
    long start = System.nanoTime();
    List<Sample> samples = runProcedures(api, settings.procedures());
    double wall = (System.nanoTime() - start) / 1e9;
    Map<String, Double> after = api.metrics(leaderHttp);
    if (!api.cluster(leaderHttp).path("role").asText().equals("LEADER_RUNNING")) {
      out.println("[bench] warning: the leader changed during the run; rates are partial");
    }
    long[] latencies = samples.stream().mapToLong(Sample::latencyMillis).sorted().toArray();
    int failed = (int) samples.stream().filter(s -> !s.success()).count();
    return new BenchResult(
        settings,
        wall,
        samples.size() / wall,
        delta(before, after, STORE_BATCHES) / wall,
        delta(before, after, LOG_ENTRIES) / wall,
        percentile(latencies, PERCENT_50),
        percentile(latencies, PERCENT_99),
        percentile(latencies, PERCENT_999),
        failed);
  }

  /** One finished procedure. */
  private record Sample(long latencyMillis, boolean success) {}

  /** {@code count} procedures from the workers, each closed-loop; their samples. */
  private List<Sample> runProcedures(NodeApiClient api, int count)
      throws IOException, InterruptedException {
    AtomicInteger next = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(settings.workers());
    try {
      List<Future<List<Sample>>> futures = new ArrayList<>();
      for (int w = 0; w < settings.workers(); w++) {
        futures.add(
            pool.submit(
                () -> {
                  List<Sample> mine = new ArrayList<>();
                  while (next.getAndIncrement() < count) {
                    mine.add(oneProcedure(api));
                  }
                  return mine;
                }));
      }
      List<Sample> all = new ArrayList<>();
      for (Future<List<Sample>> f : futures) {
        try {
          all.addAll(f.get());
        } catch (ExecutionException e) {
          throw new IOException("a bench client failed: " + e.getCause().getMessage(), e);
        }
      }
      return all;
    } finally {
      pool.shutdownNow();
    }
  }

  private Sample oneProcedure(NodeApiClient api) throws IOException, InterruptedException {
    JsonNode args = Json.LENIENT.createObjectNode().put("steps", settings.steps());
    long nonce = nonces.incrementAndGet();
    long submitted = System.currentTimeMillis();
    long id = api.retrying(() -> api.submit("Noop", args, NONCE_GROUP, nonce));
    JsonNode view =
        Poll.backoff(ConfigNodeWaits.BENCH_FIRST_POLL, ConfigNodeWaits.BENCH_MAX_POLL)
            .pauseFirst()
            .within(ConfigNodeWaits.BENCH_PROCEDURE_PATIENCE)
            .onTimeout(
                expiry ->
                    new IOException(
                        "procedure "
                            + id
                            + " not finished after "
                            + ConfigNodeWaits.BENCH_PROCEDURE_PATIENCE
                            + ": "
                            + expiry.lastValue()))
            .until(() -> api.get("/api/procedures/" + id), v -> v.path("finished").asBoolean());
    return new Sample(
        Math.max(0, view.path("lastUpdate").asLong() - submitted),
        "SUCCESS".equals(view.path("state").asText()));
  }

  private static double delta(Map<String, Double> before, Map<String, Double> after, String name) {
    return after.getOrDefault(name, 0.0) - before.getOrDefault(name, 0.0);
  }

  /** Nearest-rank percentile of sorted values; 0 for none. */
  static long percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
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
