package dev.baton.it;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.cluster.ProcessCluster;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How long adding a ConfigNode takes when it must catch up N live procedures (a snapshot install
 * once the log behind them was purged), and the workload's latency during the change against before
 * it, on a local secured 3-ConfigNode process cluster. Not a test: run it by hand with the jar on
 * the class path (its child processes run from the class path):
 *
 * <pre>
 * mvn -B -q -pl integration-test -am verify -DskipTests
 * java -cp integration-test/target/test-classes:confignode-sim/target/confignode-sim.jar \
 *   dev.baton.it.MembershipCatchUpBenchmark [LIVE_PROCEDURES, default 10000]
 * </pre>
 *
 * The workload is one client submitting one-step Noops back to back; its latency is the time to an
 * acknowledged submission (committed in the log).
 */
public final class MembershipCatchUpBenchmark {
  static final int DEFAULT_LIVE = 10_000;

  /** Clients submitting the live procedures. */
  static final int LOADERS = 16;

  /** Each live procedure sleeps this long: it stays live through the run. */
  static final long LIVE_SLEEP_MILLIS = Duration.ofHours(1).toMillis();

  /** How long the workload runs before the change, for the baseline. */
  static final Duration BASELINE = Duration.ofSeconds(20);

  static final Duration ADD_PATIENCE = Duration.ofMinutes(10);

  /**
   * Snapshot every this many log entries, so the log behind the live procedures is purged and the
   * new member must install a snapshot.
   */
  static final String SNAPSHOT_EVERY = "1000";

  static final double P50 = 0.50;
  static final double P99 = 0.99;
  static final long NANOS_PER_MILLI = 1_000_000;

  private MembershipCatchUpBenchmark() {}

  public static void main(String[] args) throws Exception {
    int live = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_LIVE;
    try (ProcessCluster cluster =
        ProcessCluster.start(3, 0, false, List.of("--snapshot-every", SNAPSHOT_EVERY))) {
      long start = System.nanoTime();
      load(cluster, live);
      System.out.printf(
          Locale.ROOT,
          "%d live procedures submitted in %.1f s%n",
          live,
          (System.nanoTime() - start) / 1e9);
      List<Long> before = Collections.synchronizedList(new ArrayList<>());
      List<Long> during = Collections.synchronizedList(new ArrayList<>());
      AtomicBoolean changing = new AtomicBoolean();
      AtomicBoolean stop = new AtomicBoolean();
      Thread workload =
          new Thread(
              () -> {
                while (!stop.get()) {
                  long t0 = System.nanoTime();
                  try {
                    cluster.procedures().submit("Noop", ClusterProcedures.args("steps", 1));
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                  (changing.get() ? during : before).add(System.nanoTime() - t0);
                }
              });
      workload.start();
      Thread.sleep(BASELINE.toMillis());
      String address = cluster.startJoiningNode("cn4");
      cluster.awaitAnswering("cn4");
      changing.set(true);
      long addStart = System.nanoTime();
      long procId =
          cluster
              .api()
              .post("/api/membership/add", ClusterProcedures.args("id", "cn4", "address", address))
              .get("procId")
              .asLong();
      JsonNode done = cluster.procedures().awaitFinished(procId, ADD_PATIENCE);
      long addNanos = System.nanoTime() - addStart;
      long target = cluster.cluster(cluster.leader()).path("appliedIndex").asLong();
      cluster.awaitApplied("cn4", target, ADD_PATIENCE);
      long caughtUpNanos = System.nanoTime() - addStart;
      changing.set(false);
      stop.set(true);
      workload.join();
      System.out.printf(
          Locale.ROOT,
          "add cn4 with %d live procedures: %s in %.1f s; cn4 applied the leader's index %d"
              + " %.1f s after the add was asked; cn4's snapshot installs: %s%n",
          live,
          done.path("state").asText(),
          addNanos / 1e9,
          target,
          caughtUpNanos / 1e9,
          Files.readString(cluster.log("cn4")).contains("installed from the leader")
              ? "yes"
              : "none");
      System.out.println("workload before the change: " + latencies(before));
      System.out.println("workload during the change: " + latencies(during));
    }
  }

  /** Submits {@code live} one-hour Sleeps from {@link #LOADERS} clients. */
  static void load(ProcessCluster cluster, int live) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(LOADERS);
    try {
      List<Future<?>> parts = new ArrayList<>();
      for (int t = 0; t < LOADERS; t++) {
        int share = live / LOADERS + (t < live % LOADERS ? 1 : 0);
        parts.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < share; i++) {
                    cluster
                        .procedures()
                        .submit("Sleep", ClusterProcedures.args("millis", LIVE_SLEEP_MILLIS));
                  }
                  return null;
                }));
      }
      for (Future<?> f : parts) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static String latencies(List<Long> nanos) {
    List<Long> sorted;
    synchronized (nanos) {
      sorted = new ArrayList<>(nanos);
    }
    if (sorted.isEmpty()) {
      return "no submissions";
    }
    Collections.sort(sorted);
    return String.format(
        Locale.ROOT,
        "%d submissions, p50 %.1f ms, p99 %.1f ms, max %.1f ms",
        sorted.size(),
        at(sorted, P50),
        at(sorted, P99),
        sorted.get(sorted.size() - 1) / (double) NANOS_PER_MILLI);
  }

  private static double at(List<Long> sorted, double q) {
    return sorted.get((int) Math.min(sorted.size() - 1, Math.floor(q * sorted.size())))
        / (double) NANOS_PER_MILLI;
  }
}
