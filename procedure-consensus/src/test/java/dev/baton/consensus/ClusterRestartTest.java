package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Every node stops at once and starts again on its own disk. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterRestartTest {
  @TempDir Path dir;

  @Test
  void afterAFullRestartLiveProceduresResumeFinishedOnesStayReadableAndIdsAreNeverReused()
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      long firstTerm = leader.term();
      List<Long> finished = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        finished.add(leader.submit(new Work("done-" + i), null).get(30, TimeUnit.SECONDS));
      }
      // children get their ids from a block the leader's executor reserved through the log
      long tree = leader.submit(new Tree("tree", 3), null).get(30, TimeUnit.SECONDS);
      finished.add(tree);
      for (long id : finished) {
        assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, id).state());
      }
      CountDownLatch gate = cluster.world.hold("live:APPLY");
      long live = leader.submit(new Work("live"), null).get(30, TimeUnit.SECONDS);
      assertTrue(cluster.world.reached.get("live:APPLY").await(30, TimeUnit.SECONDS));
      // children of a finished root are gone from the table; the journal still knows their ids
      long highestBefore =
          cluster.world.steps().stream().mapToLong(World.Step::procId).max().orElseThrow();
      assertTrue(highestBefore > tree, "the children got ids after their parent's");

      // a busy machine may elect another leader before the kill: compare with the last term then
      long termAtKill =
          cluster.running().stream().mapToLong(ProcedureNode::term).max().orElseThrow();
      cluster.killAll();
      gate.countDown(); // the interrupted APPLY runs again after the restart, this time through
      cluster.startAll();

      ProcedureNode<Work.Env> next = cluster.awaitRunningLeader();
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(next, live).state());
      List<World.Step> steps = cluster.world.steps("live");
      assertEquals(
          List.of("PREPARE", "APPLY", "COMMIT"), steps.stream().map(World.Step::state).toList());
      long prepared = steps.get(0).term();
      assertTrue(
          prepared >= firstTerm && prepared <= termAtKill, "PREPARE ran before the kill: " + steps);
      assertTrue(steps.get(1).term() > termAtKill, "APPLY ran after the restart: " + steps);

      for (ProcedureNode<Work.Env> n : cluster.running()) {
        for (long id : finished) {
          ProcedureInfo info = n.getInfo(id).get(30, TimeUnit.SECONDS).orElseThrow();
          assertEquals(ProcedureState.SUCCESS, info.state(), id + " read on " + n.nodeId());
        }
      }
      long after = cluster.follower().submit(new Work("after"), null).get(30, TimeUnit.SECONDS);
      assertTrue(after > highestBefore, "new id " + after + " <= earlier id " + highestBefore);
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(next, after).state());
    }
  }
}
