package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureState;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Leadership moved by the operator, away and back: every term gets a brand-new executor. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeadershipTransferTest {
  static final long TRANSFER_TIMEOUT_MS = 10_000;

  @TempDir Path dir;

  @Test
  void leadershipMovedAwayAndBackBuildsANewExecutorEachTimeAndWorkFinishes() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll();
        RaftClient admin = cluster.raftClient()) {
      ProcedureNode<Work.Env> a = cluster.awaitRunningLeader();
      long firstTerm = a.term();
      long aChanges = a.leaderChanges();
      assertTrue(aChanges >= 1, "the leader counts itself: " + aChanges);
      ProcedureExecutor<Work.Env> firstExecutor = a.executor().orElseThrow();
      ProcedureNode<Work.Env> b = cluster.follower();
      // a procedure whose APPLY step is held through both transfers
      CountDownLatch gate = cluster.world.hold("held:APPLY");
      long held = a.submit(new Work("held"), null).get(30, TimeUnit.SECONDS);
      assertTrue(cluster.world.reached.get("held:APPLY").await(30, TimeUnit.SECONDS));

      transfer(cluster, admin, b);
      // the old term's store failed at once; its executor stops on the lifecycle thread
      await().atMost(TestCluster.ELECTION_WAIT).until(() -> !firstExecutor.isRunning());
      assertTrue(a.executor().isEmpty());
      assertEquals(NodeRole.FOLLOWER, a.role());
      long between = a.submit(new Work("between"), null).get(30, TimeUnit.SECONDS);
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(a, between).state());
      assertEquals(b.nodeId(), cluster.world.steps("between").get(0).node());
      ProcedureExecutor<Work.Env> bExecutor = b.executor().orElseThrow();

      transfer(cluster, admin, a);
      long back = b.submit(new Work("back"), null).get(30, TimeUnit.SECONDS);
      ProcedureExecutor<Work.Env> secondExecutor = a.executor().orElseThrow();
      assertNotSame(firstExecutor, secondExecutor, "a new term builds a new executor");
      await().atMost(TestCluster.ELECTION_WAIT).until(() -> !bExecutor.isRunning());
      assertTrue(a.term() > firstTerm + 1, "two elections since the first term: " + a.term());
      assertTrue(
          a.leaderChanges() >= aChanges + 2,
          () -> "a saw b lead, then itself: " + aChanges + " -> " + a.leaderChanges());
      assertEquals(a.term(), a.lastRecovery().orElseThrow().term());
      // the new executor knows the table, not the old executor's memory
      assertEquals(ProcedureState.SUCCESS, secondExecutor.getInfo(between).orElseThrow().state());

      gate.countDown();
      for (long id : List.of(held, back)) {
        assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(b, id).state());
      }
      List<World.Step> steps = cluster.world.steps("held");
      assertEquals(
          List.of("PREPARE", "APPLY", "COMMIT"), steps.stream().map(World.Step::state).toList());
      assertEquals(firstTerm, steps.get(0).term());
      assertEquals(a.term(), steps.get(1).term(), "APPLY completed only in a's second term");
      assertEquals(a.nodeId(), steps.get(1).node());
      assertEquals(a.nodeId(), cluster.world.steps("back").get(0).node());
    }
  }

  /** Asks the current leader to hand leadership to {@code target}; waits until it runs there. */
  private static void transfer(
      TestCluster cluster, RaftClient admin, ProcedureNode<Work.Env> target) {
    await()
        .atMost(TestCluster.ELECTION_WAIT)
        .ignoreExceptions()
        .until(
            () ->
                admin
                    .admin()
                    .transferLeadership(RaftPeerId.valueOf(target.nodeId()), TRANSFER_TIMEOUT_MS)
                    .isSuccess());
    await()
        .atMost(TestCluster.ELECTION_WAIT)
        .until(() -> cluster.runningLeader().filter(n -> n == target).isPresent());
  }
}
