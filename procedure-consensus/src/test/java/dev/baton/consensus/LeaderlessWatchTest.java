package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that knows no leader for long says so (a warning with its Raft state, {@link
 * ProcedureNode#leaderlessFor}), and stops once a leader is known.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaderlessWatchTest {
  static final Duration MIN = Duration.ofMillis(100);
  static final Duration MAX = Duration.ofMillis(200);

  @TempDir Path dir;

  @Test
  void aNodeWithoutQuorumWarnsAfterTenElectionTimeoutsAndStopsOnceALeaderIsKnown()
      throws Exception {
    Duration warnAfter = MAX.multipliedBy(LeaderlessWatch.TIMEOUTS_BEFORE_WARNING);
    try (TestCluster cluster = new TestCluster(dir, 3, b -> b.electionTimeouts(MIN, MAX))) {
      ProcedureNode<Work.Env> alone = cluster.start("n1");
      LeaderlessWatch watch = alone.peer().watch();
      await()
          .atMost(TestCluster.ELECTION_WAIT)
          .until(() -> watch.warnings() >= 1 && alone.leaderlessFor().isPresent());
      Duration without = alone.leaderlessFor().orElseThrow();
      assertTrue(
          without.compareTo(warnAfter) >= 0, "warned after " + without + ", before " + warnAfter);
      assertEquals(0, alone.leaderChanges(), "no leader was ever known");

      cluster.start("n2");
      cluster.awaitRunningLeader();
      await().atMost(TestCluster.ELECTION_WAIT).until(() -> alone.leaderlessFor().isEmpty());
      long warned = watch.warnings();
      watch.check();
      assertEquals(warned, watch.warnings(), "no warning while a leader is known");
    }
  }
}
