package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FailoverTest {
  @TempDir Path dir;

  @Test
  void aNewLeaderFinishesAProcedureWhoseLeaderDiedMidStep() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      long firstTerm = leader.term();
      CountDownLatch gate = cluster.world.hold("w:APPLY");
      NonceKey nonce = new NonceKey(1, 1);
      long procId = leader.submit(new Work("w"), nonce).get(30, TimeUnit.SECONDS);
      assertTrue(cluster.world.reached.get("w:APPLY").await(60, TimeUnit.SECONDS));

      cluster.kill(leader.nodeId());
      gate.countDown();
      ProcedureNode<Work.Env> next = cluster.awaitRunningLeader();
      assertNotEquals(leader.nodeId(), next.nodeId());

      ProcedureInfo done = ProcedureNodeTest.awaitFinished(next, procId);
      assertEquals(ProcedureState.SUCCESS, done.state());
      List<World.Step> steps = cluster.world.steps("w");
      assertEquals(
          List.of("PREPARE", "APPLY", "COMMIT"),
          steps.stream().map(World.Step::state).toList(),
          "the step interrupted by the kill was never recorded; nothing ran twice: " + steps);
      assertEquals(firstTerm, steps.get(0).term());
      assertTrue(steps.get(1).term() > firstTerm, "APPLY ran in a later term: " + steps);
      assertEquals(next.nodeId(), steps.get(2).node());

      // a client retrying its submission after the failover gets the first id back
      long retried = next.submit(new Work("w"), nonce).get(30, TimeUnit.SECONDS);
      assertEquals(procId, retried);
    }
  }
}
