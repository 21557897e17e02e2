package dev.baton.consensus;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Measures linearizable reads ({@link ProcedureNode#getInfo}) on the leader and on a follower of an
 * in-process 3-node cluster: right after a write (the case where a follower must learn the new
 * commit index) and with the cluster idle. Prints mean, p50 and p99 per case, and the follower /
 * leader ratio. Run: {@code mvn -B -o -q -pl procedure-consensus -am test-compile exec:java
 * -Dexec.classpathScope=test -Dexec.mainClass=dev.baton.consensus.ReadLatencyProbe}.
 */
public final class ReadLatencyProbe {
  /** Reads per case (after as many warm-up reads). */
  static final int READS = 300;

  private ReadLatencyProbe() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("read-probe");
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      ProcedureNode<Work.Env> follower = cluster.follower();
      long id = leader.submit(new Work("probe"), null).get(30, TimeUnit.SECONDS);
      ProcedureNodeTest.awaitFinished(leader, id);
      for (boolean afterWrite : new boolean[] {true, false}) {
        double[] lead = measure(leader, leader, id, afterWrite);
        double[] foll = measure(follower, leader, id, afterWrite);
        String when = afterWrite ? "after a write" : "idle";
        System.out.printf(
            "reads %s: leader mean %.1f p50 %.1f p99 %.1f ms; follower mean %.1f p50 %.1f p99 %.1f"
                + " ms; follower/leader mean %.2f%n",
            when, lead[0], lead[1], lead[2], foll[0], foll[1], foll[2], foll[0] / lead[0]);
      }
    }
  }

  /** Mean, p50, p99 in ms of reads on {@code reader}, each after a write through the leader. */
  private static double[] measure(
      ProcedureNode<Work.Env> reader, ProcedureNode<Work.Env> leader, long id, boolean afterWrite)
      throws Exception {
    double[] ms = new double[READS];
    for (int i = -READS; i < READS; i++) {
      if (afterWrite) {
        leader.submit(new Work("w" + i), null).get(30, TimeUnit.SECONDS);
      }
      long t0 = System.nanoTime();
      reader.getInfo(id).get(30, TimeUnit.SECONDS).orElseThrow();
      if (i >= 0) {
        ms[i] = (System.nanoTime() - t0) / 1e6;
      }
    }
    double mean = Arrays.stream(ms).average().orElse(0);
    Arrays.sort(ms);
    return new double[] {mean, ms[READS / 2], ms[READS * 99 / 100]};
  }
}
