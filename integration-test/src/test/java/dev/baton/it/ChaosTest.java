package dev.baton.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.chaos.ClusterChaosRun;
import dev.baton.confignode.chaos.FaultEvent;
import dev.baton.confignode.chaos.FaultSchedule;
import dev.baton.confignode.cluster.InvariantCheck;
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
    long seed = ChaosRuns.seed();
    ChaosRuns.Outcome run = ChaosRuns.run(new ClusterChaosRun.Settings(seed, SECONDS, 3, 3, false));
    InvariantCheck.Result result = run.result();
    String report = run.report();
    assertTrue(result.ok(), () -> "chaos seed " + seed + " broke invariants:\n" + report);
    assertTrue(report.contains("chaos seed " + seed), report);
    assertTrue(result.procedures() > 0, report);
    // every scheduled fault, DataNode kills and whole-cluster outages included, ran and healed
    for (FaultEvent e : FaultSchedule.generate(seed, SECONDS * 1000L, 3, 3).events()) {
      assertTrue(report.contains("healed " + e.action()), () -> "not healed: " + e + "\n" + report);
    }
  }
}
