package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Linearizable reads a follower answers itself (a read index from the leader, then its own table):
 * a write the leader acknowledged is visible in the follower's next read, and where the answer
 * continues: on the thread that took the leader's read index, never on the follower's apply thread
 * (a read that waited for the follower to apply its read index moves off it). A follower without a
 * leader answers no read ({@link QuorumLossTest}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FollowerReadTest {
  /** Writes on the leader, each read on a follower right after. */
  static final int WRITES = 30;

  /** Reads of an idle cluster. */
  static final int IDLE_READS = 20;

  @TempDir Path dir;

  @Test
  void aFollowerReadRightAfterAWriteOnTheLeaderSeesItAndLeavesTheApplyThread() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      ProcedureNode<Work.Env> follower = cluster.follower();
      AtomicInteger onApplyThread = new AtomicInteger();
      for (int i = 0; i < WRITES; i++) {
        long id = leader.submit(new Work("w" + i), null).get(30, TimeUnit.SECONDS);
        Optional<ProcedureInfo> seen =
            follower
                .getInfo(id)
                .whenComplete(
                    (info, error) -> {
                      if (follower.stateMachine().onApplyThread()) {
                        onApplyThread.incrementAndGet();
                      }
                    })
                .get(30, TimeUnit.SECONDS);
        assertTrue(seen.isPresent(), "the follower's read after submission " + id + " misses it");
      }
      assertEquals(0, onApplyThread.get(), "reads whose answer continued on the apply thread");
    }
  }

  @Test
  void anIdleFollowersAnswerContinuesOnTheThreadThatTookTheReadIndex() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      ProcedureNode<Work.Env> follower = cluster.follower();
      long id = leader.submit(new Work("idle"), null).get(30, TimeUnit.SECONDS);
      ProcedureNodeTest.awaitFinished(leader, id);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  follower.stateMachine().getLastAppliedTermIndex().getIndex()
                      >= leader.stateMachine().getLastAppliedTermIndex().getIndex());
      String readThread = "baton-" + follower.nodeId() + "-read-replies";
      List<String> threads = new ArrayList<>();
      for (int i = 0; i < IDLE_READS; i++) {
        threads.add(
            follower
                .getInfo(id)
                .thenApply(info -> Thread.currentThread().getName())
                .get(30, TimeUnit.SECONDS));
      }
      assertTrue(
          threads.stream().noneMatch(readThread::equals),
          "answers handed to " + readThread + ": " + threads);
    }
  }
}
