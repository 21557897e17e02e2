package dev.baton.consensus;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Where one procedure's time goes on the leader of an in-process 3-node cluster, one procedure at a
 * time (as {@code bench --clients 1}, without its HTTP and TLS): a three-step {@link Work} is
 * submitted on the leader and awaited there ({@link ProcedureNode#awaitFinished}); each step's
 * start is taken from the {@link World}'s reached latches. Then, for comparison: the bench's raw
 * baseline (empty commits through a {@link ProcedureClient}) and the disk's own flush (a small
 * overwrite of a preallocated file and {@link FileChannel#force}, what a Raft log flush costs each
 * member). Prints p50 and mean per stage, the store's entries on their way through Raft (sent to
 * reply on the submitter's reply thread) and the ratio procedure p50 / raw commit p50. Run: {@code
 * mvn -B -o -q -pl procedure-consensus -am test-compile exec:java@step-probe}.
 */
public final class StepLatencyProbe {
  /** Procedures measured by default (after as many warm-up ones); also raw commits and flushes. */
  static final int DEFAULT_PROCEDURES = 500;

  /** Bytes of one flushed write: about one small log entry. */
  static final int FLUSH_BYTES = 512;

  /** The preallocated file's size, as Ratis preallocates its log segments. */
  static final int FLUSH_FILE_BYTES = 4 << 20;

  private static final double NANOS_PER_MILLI = 1e6;

  /**
   * Election timeouts far above the default's: the probe runs on machines loaded by other work,
   * where pauses of a few hundred milliseconds made leaders change during a run (one leader is
   * measured throughout).
   */
  static final Duration ELECTION_TIMEOUT_MIN = Duration.ofSeconds(3);

  static final Duration ELECTION_TIMEOUT_MAX = Duration.ofSeconds(6);

  /** Stages, each from the end of the one before (the first from the submit call). */
  static final String[] STAGES = {
    "submit -> step 1 starts",
    "step 1 -> step 2 starts",
    "step 2 -> step 3 starts",
    "step 3 -> finish seen",
    "total",
    "submit answered"
  };

  private StepLatencyProbe() {}

  /** A latch that notes when it was counted down. */
  static final class Stamp extends CountDownLatch {
    volatile long at;

    Stamp() {
      super(1);
    }

    @Override
    public void countDown() {
      at = System.nanoTime();
      super.countDown();
    }
  }

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_PROCEDURES;
    Path dir = Files.createTempDirectory("step-probe");
    try (TestCluster cluster =
        new TestCluster(dir, 3, b -> b.electionTimeouts(ELECTION_TIMEOUT_MIN, ELECTION_TIMEOUT_MAX))
            .startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      double[][] ms = new double[STAGES.length][n];
      for (int i = -n; i < n; i++) {
        if (i == 0) {
          leader.metrics().writeTimings().reset();
        }
        String name = "p" + i;
        Stamp[] steps = new Stamp[Work.S.values().length];
        for (Work.S s : Work.S.values()) {
          steps[s.ordinal()] = new Stamp();
          cluster.world.reached.put(name + ":" + s, steps[s.ordinal()]);
        }
        long t0 = System.nanoTime();
        long id = leader.submit(new Work(name), null).get(30, TimeUnit.SECONDS);
        long submitted = System.nanoTime();
        leader.awaitFinished(id, Duration.ofSeconds(30)).get(30, TimeUnit.SECONDS).orElseThrow();
        long done = System.nanoTime();
        if (i >= 0) {
          long[] at = {t0, steps[0].at, steps[1].at, steps[2].at, done};
          for (int s = 1; s < at.length; s++) {
            ms[s - 1][i] = (at[s] - at[s - 1]) / NANOS_PER_MILLI;
          }
          ms[4][i] = (done - t0) / NANOS_PER_MILLI;
          ms[5][i] = (submitted - t0) / NANOS_PER_MILLI;
        }
      }
      for (int s = 0; s < STAGES.length; s++) {
        print(STAGES[s], ms[s]);
      }
      WriteTimings w = leader.metrics().writeTimings();
      System.out.printf(
          "store entry sent -> reply      p50 %6.2f ms (%d entries); write queued p50 %.2f p90 %.2f"
              + " p99 %.2f ms; apply p50 %.3f ms%n",
          w.committed().percentileMillis(0.5),
          w.committed().count(),
          w.queued().percentileMillis(0.5),
          w.queued().percentileMillis(0.9),
          w.queued().percentileMillis(0.99),
          w.applied().percentileMillis(0.5));
      double[] raw = rawCommits(cluster, n);
      print("raw commit (client)", raw);
      print("disk flush (force)", flushes(dir, n));
      System.out.printf(
          "ratio procedure p50 / raw commit p50: %.2f%n", median(ms[4]) / median(raw));
    }
  }

  /** Empty commits through a Raft client of the cluster, one at a time, after as many warm-up. */
  private static double[] rawCommits(TestCluster cluster, int n) throws IOException {
    double[] ms = new double[n];
    try (ProcedureClient client = ProcedureClient.connect(cluster.peers, Work.registry())) {
      for (int i = -n; i < n; i++) {
        long t0 = System.nanoTime();
        client.commitEmpty();
        if (i >= 0) {
          ms[i] = (System.nanoTime() - t0) / NANOS_PER_MILLI;
        }
      }
    }
    return ms;
  }

  /** Small overwrites of a preallocated file in {@code dir}, each forced to the disk. */
  private static double[] flushes(Path dir, int n) throws IOException {
    Path file = dir.resolve("flush-probe");
    double[] ms = new double[n];
    try (FileChannel ch =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ)) {
      ch.write(ByteBuffer.allocate(FLUSH_FILE_BYTES), 0);
      ch.force(true);
      ByteBuffer entry = ByteBuffer.allocate(FLUSH_BYTES);
      for (int i = 0; i < n; i++) {
        entry.clear();
        long t0 = System.nanoTime();
        ch.write(entry, (long) i * FLUSH_BYTES);
        ch.force(false);
        ms[i] = (System.nanoTime() - t0) / NANOS_PER_MILLI;
      }
    } finally {
      Files.deleteIfExists(file);
    }
    return ms;
  }

  private static void print(String what, double[] ms) {
    double mean = Arrays.stream(ms).average().orElse(0);
    System.out.printf("%-30s p50 %6.2f ms, mean %6.2f ms%n", what, median(ms), mean);
  }

  private static double median(double[] ms) {
    double[] sorted = ms.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
