package dev.baton.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.chaos.ClusterChaosRun;
import dev.baton.confignode.chaos.FaultEvent;
import dev.baton.confignode.chaos.FaultSchedule;
import dev.baton.confignode.cluster.InvariantCheck;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short chaos run for CI: a random seed (or {@code -Dchaos.seed=S} to replay one), printed with
 * the timeline; every invariant must hold.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ChaosTest {
  /**
   * Seconds of faults: short enough for CI (slow restarts shift the schedule, so the run takes
   * longer), long enough for about ten faults.
   */
  static final int SECONDS = 30;

  @Test
  void invariantsHoldAfterASeededChaosRun() throws Exception {
    long seed = Long.getLong("chaos.seed", System.nanoTime());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    InvariantCheck.Result result;
    try {
      result =
          new ClusterChaosRun(new ClusterChaosRun.Settings(seed, SECONDS, 3, 3, false), out).run();
    } finally {
      System.out.print(bytes.toString(StandardCharsets.UTF_8)); // the seed and timeline, always
    }
    String report = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(result.ok(), () -> "chaos seed " + seed + " broke invariants:\n" + report);
    assertTrue(report.contains("chaos seed " + seed), report);
    assertTrue(result.procedures() > 0, report);
    // every scheduled fault, DataNode kills and whole-cluster outages included, ran and healed
    for (FaultEvent e : FaultSchedule.generate(seed, SECONDS * 1000L, 3, 3).events()) {
      assertTrue(report.contains("healed " + e.action()), () -> "not healed: " + e + "\n" + report);
    }
  }
}
