package dev.baton.consensus;

import static org.awaitility.Awaitility.await;

import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.Submit;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
@Timeout(value = 3, unit = TimeUnit.MINUTES)
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

  /** Empty entries sent at once while the log grows. */
  static final int WINDOW = 64;

  static final Duration COMMIT_WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void everyMemberKeepsItsSnapshotWithinTheReplayBound() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      growLog(cluster, cluster.awaitRunningLeader(), LOG_ENTRIES);
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

  /**
   * Commits empty entries through a client, {@link #WINDOW} at a time, until {@code leader}'s log
   * holds {@code entries}: each is a log entry of its own, as a write of one procedure's step is.
   */
  private static void growLog(TestCluster cluster, ProcedureNode<Work.Env> leader, long entries)
      throws Exception {
    Command empty = Command.newBuilder().setSubmit(Submit.getDefaultInstance()).build();
    try (ProcedureClient client =
        ProcedureClient.connect(ProcedureNode.DEFAULT_CLUSTER_ID, cluster.peers, Work.registry())) {
      while (leader.commitIndex() < entries) {
        List<CompletableFuture<CommandReply>> window = new ArrayList<>(WINDOW);
        for (int i = 0; i < WINDOW; i++) {
          window.add(client.send(empty));
        }
        CompletableFuture.allOf(window.toArray(CompletableFuture[]::new))
            .get(COMMIT_WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    }
  }
}
