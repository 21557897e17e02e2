package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A new leader rebuilding its executor accepts work durably and runs it once it is ready. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeaderRecoveryTest {
  @TempDir Path dir;

  @Test
  void submissionsAndAbortsWhileTheNewLeaderRecoversAreKeptAndRunAfterIt() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll();
        ProcedureClient client = ProcedureClient.connect(cluster.peers, Work.registry())) {
      ProcedureNode<Work.Env> first = cluster.awaitRunningLeader();
      cluster.world.hold("old:APPLY");
      long old = first.submit(new Work("old"), null).get(30, TimeUnit.SECONDS);
      assertTrue(cluster.world.reached.get("old:APPLY").await(30, TimeUnit.SECONDS));

      CountDownLatch recovery = cluster.world.holdRecovery();
      try {
        cluster.kill(first.nodeId());
        assertTrue(cluster.world.recoveryReached().await(30, TimeUnit.SECONDS));
        ProcedureNode<Work.Env> next =
            cluster.running().stream().filter(ProcedureNode::isLeader).findFirst().orElseThrow();
        ProcedureNode<Work.Env> follower =
            cluster.running().stream().filter(n -> n != next).findFirst().orElseThrow();
        assertEquals(NodeRole.LEADER_RECOVERING, next.role());
        assertTrue(next.executor().isEmpty(), "no executor runs while recovering");
        LeadershipManager.RecoveryProgress progress = next.recoveryProgress().orElseThrow();
        assertEquals("BUILDING", progress.stage(), "held while its environment is built");
        assertTrue(progress.sinceMillis() <= System.currentTimeMillis(), progress::toString);
        assertTrue(follower.recoveryProgress().isEmpty(), "a follower recovers nothing");

        // accepted durably on the recovering leader itself, on a follower, and from outside
        List<Long> submitted = new ArrayList<>();
        submitted.add(next.submit(new Work("on-leader"), null).get(30, TimeUnit.SECONDS));
        submitted.add(follower.submit(new Work("on-follower"), null).get(30, TimeUnit.SECONDS));
        submitted.add(client.submit(new Work("from-client"), new NonceKey(9, 9)));
        CompletableFuture<Boolean> abort = follower.abort(old);
        for (long id : submitted) {
          assertEquals(
              ProcedureState.RUNNABLE,
              next.getInfo(id).get(30, TimeUnit.SECONDS).orElseThrow().state(),
              "read while recovering");
        }
        assertEquals(NodeRole.LEADER_RECOVERING, next.role(), "still recovering");
        for (String name : List.of("on-leader", "on-follower", "from-client")) {
          assertEquals(List.of(), cluster.world.steps(name), name + " ran before recovery");
        }

        recovery.countDown();
        // old stays live (its APPLY runs again and is held) until the abort reached the executor
        assertTrue(abort.get(30, TimeUnit.SECONDS), "the abort waited for the executor");
        cluster.world.gates.get("old:APPLY").countDown();
        assertEquals(ProcedureState.ROLLEDBACK, ProcedureNodeTest.awaitFinished(next, old).state());
        for (long id : submitted) {
          assertEquals(
              ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(follower, id).state());
        }
        assertEquals(NodeRole.LEADER_RUNNING, next.role());
        assertTrue(next.recoveryProgress().isEmpty(), "a running leader recovers nothing");
        LeadershipManager.Recovery r = next.lastRecovery().orElseThrow();
        assertEquals(next.term(), r.term());
        LeadershipManager.Phases p = r.phases();
        assertEquals(
            r.rebuildTime().toMillis(),
            p.queued() + p.build() + p.load() + p.rebuild(),
            "the phases add up to the whole recovery: " + p);
        for (String name : List.of("on-leader", "on-follower", "from-client")) {
          List<World.Step> steps = cluster.world.steps(name);
          assertEquals(3, steps.size(), steps.toString());
          for (World.Step s : steps) {
            assertEquals(next.nodeId(), s.node());
            assertEquals(next.term(), s.term());
          }
        }
        assertNotEquals(first.nodeId(), next.nodeId());
      } finally {
        recovery.countDown();
      }
    }
  }
}
