package dev.baton.confignode.procedures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A real deadlock on a ConfigNode with the default policy: two {@link LockPair}s with reversed
 * names, each holding its first lock while its child asks for the other's, form a wait-for cycle;
 * the executor breaks it by failing the youngest procedure waiting for a lock (a child), whose tree
 * rolls back naming the cycle, while the other pair finishes; {@code GET /api/locks} lists the
 * broken cycle and {@code baton_lock_deadlocks_total} counts it.
 */
@Timeout(120)
class LockPairDeadlockTest {
  /** Long enough for both pairs to hold their first lock before either asks for its second. */
  private static final int PAUSE_MILLIS = 1_500;

  @RegisterExtension static final SimClusterExtension CLUSTER = new SimClusterExtension(1, 0);

  @Test
  void twoPairsInReversedOrderDeadlockAndTheYoungestWaiterFailsNamingTheCycle() throws Exception {
    SimCluster cluster = CLUSTER.cluster();
    String node = SimCluster.http(cluster.leader());
    double before = deadlocks(cluster, node);
    long ab = cluster.submit("LockPair", "first", "a", "second", "b", "pauseMillis", PAUSE_MILLIS);
    long ba = cluster.submit("LockPair", "first", "b", "second", "a", "pauseMillis", PAUSE_MILLIS);

    ProcedureInfo first = cluster.awaitFinished(ab);
    ProcedureInfo second = cluster.awaitFinished(ba);
    List<ProcedureInfo> outcomes = List.of(first, second);
    assertEquals(
        1,
        outcomes.stream().filter(i -> i.state() == ProcedureState.SUCCESS).count(),
        outcomes::toString);
    ProcedureInfo broken = first.state() == ProcedureState.SUCCESS ? second : first;
    assertEquals(ProcedureState.ROLLEDBACK, broken.state(), broken::toString);
    assertTrue(broken.failure().contains("deadlock of 4 procedures"), broken::toString);

    JsonNode locks = cluster.api().get("/api/locks");
    assertEquals(0, locks.path("cycles").size(), locks.toString());
    assertEquals(1, locks.path("deadlocks").asLong(), locks.toString());
    JsonNode cycle = locks.path("recentDeadlocks").path(0);
    long victim = cycle.path("victim").asLong();
    ProcedureInfo failed = cluster.info(victim).orElseThrow();
    assertEquals(broken.procId(), failed.rootProcId(), "the victim is of the broken tree");
    assertEquals("LockPair", failed.type());
    assertTrue(failed.parentProcId() > 0, "a child: " + failed);
    JsonNode victimLink = null;
    for (JsonNode link : cycle.path("links")) {
      if (link.path("procId").asLong() == victim) {
        victimLink = link;
      }
    }
    assertTrue(victimLink != null, "the victim is in the cycle: " + cycle);
    assertEquals("LOCK_HELD", victimLink.path("reason").asText(), cycle.toString());
    assertTrue(
        cycle.path("text").asText().contains(", the youngest waiting for a lock, fails"),
        cycle.toString());
    assertTrue(failed.failure().contains(cycle.path("text").asText()), failed::toString);
    assertEquals(before + 1, deadlocks(cluster, node));
  }

  private static double deadlocks(SimCluster cluster, String node) throws Exception {
    Map<String, Double> samples = cluster.api().metrics(node);
    return samples.getOrDefault("baton_lock_deadlocks_total", -1.0);
  }
}
