package dev.baton.it;

import dev.baton.confignode.chaos.ClusterChaosRun;
import dev.baton.confignode.cluster.InvariantCheck;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs a chaos run for a test, its report (seed, schedule, timeline) printed even if it fails. */
public final class ChaosRuns {
  /** A seed from {@code -Dchaos.seed=S} to replay one, else a fresh one. */
  public static long seed() {
    return Long.getLong("chaos.seed", System.nanoTime());
  }

  /**
   * What a run found and printed.
   *
   * @param result the invariant check
   * @param report everything the run printed
   */
  public record Outcome(InvariantCheck.Result result, String report) {}

  private ChaosRuns() {}

  /** Runs {@code settings}; prints the report to stdout, always. */
  public static Outcome run(ClusterChaosRun.Settings settings) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    InvariantCheck.Result result;
    try {
      result = new ClusterChaosRun(settings, out).run();
    } finally {
      System.out.print(bytes.toString(StandardCharsets.UTF_8)); // the seed and timeline, always
    }
    return new Outcome(result, bytes.toString(StandardCharsets.UTF_8));
  }
}
