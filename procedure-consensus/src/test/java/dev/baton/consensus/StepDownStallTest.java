package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader that stepped down because it lost a majority's heartbeats stands for election again
 * soon: when the only other live member's log is behind, nobody else can win, so Ratis' default
 * wait (10 s) would leave the group without a leader that long after every such step-down.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StepDownStallTest {
  /** Ratis' own wait after a step-down for lost heartbeats, which this node must not keep. */
  static final Duration RATIS_DEFAULT_STEP_DOWN_WAIT = Duration.ofSeconds(10);

  @TempDir Path dir;

  @Test
  void aLeaderThatLostItsMajorityIsElectedAgainWellBeforeRatisDefaultWait() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      String behind = null;
      String last = null;
      for (String id : cluster.peers.keySet()) {
        if (!id.equals(leader.nodeId())) {
          if (behind == null) {
            behind = id;
          } else {
            last = id;
          }
        }
      }
      // one follower misses an entry the two others have
      cluster.kill(behind);
      long procId = TestCluster.submitRetrying(leader, () -> new Work("ahead"), new NonceKey(1, 1));
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, procId).state());
      // the other follower goes: the leader steps down for lost heartbeats of a majority
      cluster.kill(last);
      await().atMost(TestCluster.ELECTION_WAIT).until(() -> !leader.isLeader());
      long steppedDown = System.nanoTime();

      // the lagging follower comes back: it cannot win (its log is behind), only the old leader can
      cluster.start(behind);
      ProcedureNode<Work.Env> next = cluster.awaitRunningLeader();
      Duration leaderless = Duration.ofNanos(System.nanoTime() - steppedDown);
      assertEquals(leader.nodeId(), next.nodeId(), "only the member with the longer log can win");
      assertTrue(
          leaderless.compareTo(RATIS_DEFAULT_STEP_DOWN_WAIT) < 0,
          "no leader for " + leaderless + " after the step-down");
    }
  }
}
