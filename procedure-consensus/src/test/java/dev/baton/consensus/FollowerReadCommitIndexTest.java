package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower that reads a write right after the leader acknowledged it does not yet know the write
 * is committed: the leader tells its followers the commit index with its next append or heartbeat.
 * The leader's read index call sends it to that follower at once ({@link
 * NodeCalls#leaderReadIndex}), so the read does not wait for a heartbeat.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FollowerReadCommitIndexTest {
  /**
   * Election timeouts whose heartbeats are far apart: Ratis' leader sends one every half the
   * minimum when nothing else goes to a follower.
   */
  private static final Duration ELECTION_MIN = Duration.ofSeconds(10);

  private static final Duration ELECTION_MAX = Duration.ofSeconds(12);

  /**
   * How long a read of a write just acknowledged may take: well under the heartbeat interval, so a
   * follower that learned the commit index from a heartbeat would miss it in most rounds.
   */
  private static final Duration PROMPT = Duration.ofMillis(2_000);

  private static final int ROUNDS = 5;

  @TempDir Path dir;

  @Test
  void aFollowerIsSentTheCommitIndexWithTheReadIndex() throws Exception {
    try (TestCluster cluster =
        new TestCluster(dir, 3, b -> b.electionTimeouts(ELECTION_MIN, ELECTION_MAX)).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      ProcedureNode<Work.Env> follower = cluster.follower();
      long sentBefore = leader.readIndexCommitSendCount();
      for (int round = 0; round < ROUNDS; round++) {
        long id = leader.submit(new Work("w" + round), null).get(30, TimeUnit.SECONDS);
        // the finish is the last entry written: nothing else goes to the followers after it
        Optional<ProcedureInfo> done =
            leader.awaitFinished(id, TestCluster.ELECTION_WAIT).get(60, TimeUnit.SECONDS);
        assertTrue(done.isPresent() && done.get().finished(), "the procedure did not finish");
        Optional<ProcedureInfo> seen =
            follower.getInfo(id).get(PROMPT.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(seen.isPresent(), "the follower's read missed the procedure");
        assertTrue(seen.get().finished(), "the follower's read missed the acknowledged finish");
      }
      assertTrue(
          leader.readIndexCommitSendCount() > sentBefore,
          "the leader never sent a follower the commit index with a read index");
      assertEquals(0, follower.followerReadFallbackCount(), "a follower read fell back");
    }
  }
}
