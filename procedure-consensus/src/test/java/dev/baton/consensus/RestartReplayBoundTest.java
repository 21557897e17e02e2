package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.procedure.ProcedureState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a crashed cluster has to replay when it starts again is bounded at the default settings:
 * every member's newest snapshot stays close behind what it applied, so a whole restart (every
 * process killed, no snapshot on the way down) applies a bounded stretch of log on each member
 * before its leader is ready, whatever ran before.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RestartReplayBoundTest {
  /**
   * The most entries a member may hold beyond its newest snapshot once writes stop: one snapshot
   * interval, and the entries applied while the previous snapshot was written in the background
   * (Ratis records a finished write only at its next apply past the interval). A restarted member's
   * leader applies this much before it is ready, at roughly a millisecond an entry on a loaded
   * 2-core machine, out of a 3 s budget for the whole restart.
   */
  static final long MAX_REPLAYED = 2_000;

  /** The log written before the check: well past the bound, one entry at a time. */
  static final long LOG_ENTRIES = MAX_REPLAYED * 3 / 2;

  static final Duration SETTLE = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void everyMemberKeepsItsSnapshotWithinTheReplayBound() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      growLog(cluster.awaitRunningLeader(), LOG_ENTRIES);
      cluster.awaitSameTables();
      for (ProcedureNode<Work.Env> node : cluster.running()) {
        await("node " + node.nodeId() + " holds at most " + MAX_REPLAYED + " entries unsnapshotted")
            .atMost(SETTLE)
            .until(
                () ->
                    node.metrics().snapshotIndex() >= 0
                        && node.metrics().appliedIndex() - node.metrics().snapshotIndex()
                            <= MAX_REPLAYED);
      }
    }
  }

  /** Runs procedures one at a time on {@code leader} until its log holds {@code entries}. */
  private static void growLog(ProcedureNode<Work.Env> leader, long entries) throws Exception {
    for (int n = 0; leader.commitIndex() < entries; n++) {
      long id = leader.submit(new Work("p" + n), null).get(30, TimeUnit.SECONDS);
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, id).state());
    }
  }
}
