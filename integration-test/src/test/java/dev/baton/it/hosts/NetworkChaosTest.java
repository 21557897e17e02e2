package dev.baton.it.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.chaos.ClusterChaosRun;
import dev.baton.confignode.chaos.FaultEvent;
import dev.baton.confignode.chaos.FaultSchedule;
import dev.baton.confignode.cluster.InvariantCheck;
import dev.baton.confignode.hosts.NetnsHosts;
import dev.baton.it.ChaosRuns;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short {@code chaos --network} run for CI: 30 seconds of process faults and network partitions
 * on hosts in network namespaces, a random seed (or {@code -Dchaos.seed=S} to replay one), printed
 * with the timeline; every scheduled fault ran and healed, every invariant holds, no namespace is
 * left.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class NetworkChaosTest {
  static final int SECONDS = 30;
  static final int NODES = 3;
  static final int DATANODES = 3;

  @Test
  void invariantsHoldAfterASeededChaosRunWithPartitions() throws Exception {
    long seed = ChaosRuns.seed();
    ChaosRuns.Outcome run =
        ChaosRuns.run(
            new ClusterChaosRun.Settings(
                seed,
                SECONDS,
                NODES,
                DATANODES,
                false,
                FaultSchedule.DEFAULT_MAX_MAJORITY_LOSS_MILLIS,
                true));
    InvariantCheck.Result result = run.result();
    String report = run.report();
    assertTrue(result.ok(), () -> "chaos seed " + seed + " broke invariants:\n" + report);
    assertTrue(result.procedures() > 0, report);
    List<FaultEvent> events =
        FaultSchedule.generate(
                seed,
                SECONDS * 1000L,
                NODES,
                DATANODES,
                FaultSchedule.DEFAULT_MAX_MAJORITY_LOSS_MILLIS,
                true)
            .events();
    assertTrue(
        events.stream().anyMatch(e -> e.action().partition().isPresent()),
        "the schedule has partitions: " + events);
    for (FaultEvent e : events) {
      assertTrue(report.contains("healed " + e.action()), () -> "not healed: " + e + "\n" + report);
    }
    assertEquals(List.of(), Ip.namespaces(NetnsHosts.PREFIX), "every namespace is removed");
  }
}
