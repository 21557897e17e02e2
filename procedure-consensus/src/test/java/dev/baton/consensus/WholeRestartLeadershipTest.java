package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A 3-node cluster (real Ratis over gRPC, default election timeouts) stopped and started as a
 * whole, again and again, elects one leader each time and keeps it: the first leader must not lose
 * its followers' heartbeats and hand over to a second one, which would run every interrupted step
 * once more. {@code RestartElectionsTest} in integration-test does the same with ConfigNode
 * processes.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class WholeRestartLeadershipTest {
  private static final Logger LOG = LoggerFactory.getLogger(WholeRestartLeadershipTest.class);

  static final int NODES = 3;
  static final int RESTARTS = 20;

  /**
   * How long each restart's first running leader is watched: a leader that stops hearing from a
   * majority steps down one maximum election timeout after it last heard from it, so several of
   * them fit in this window.
   */
  static final Duration KEEP =
      RaftSettings.DEFAULT_ELECTION_TIMEOUT_MAX.multipliedBy(3); // 1.8 s at 600 ms

  /** What the watch may take beyond {@link #KEEP} before Awaitility gives up. */
  static final Duration KEEP_SLACK = Duration.ofSeconds(5);

  @TempDir Path dir;

  @Test
  void aClusterRestartedTwentyTimesKeepsItsFirstLeaderEachTime() throws Exception {
    List<Integer> leadersPerRestart = new ArrayList<>();
    List<Long> termsPerRestart = new ArrayList<>();
    try (TestCluster cluster = new TestCluster(dir, NODES).startAll()) {
      cluster.awaitRunningLeader();
      for (int i = 0; i < RESTARTS; i++) {
        long termBefore = maxTerm(cluster);
        cluster.killAll();
        cluster.startAll();
        ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
        long term = leader.term();
        termsPerRestart.add(term - termBefore);
        leadersPerRestart.add(keptFor(cluster, leader, term) ? 1 : 2);
      }
    }
    Map<Integer, Integer> distribution = new TreeMap<>();
    leadersPerRestart.forEach(n -> distribution.merge(n, 1, Integer::sum));
    LOG.info(
        "{} whole restarts: leaders per restart {} (restarts by count {}), terms used {}",
        RESTARTS,
        leadersPerRestart,
        distribution,
        termsPerRestart);
    assertEquals(
        Map.of(1, RESTARTS),
        distribution,
        "leaders per restart (2 = the first leader lost its term within "
            + KEEP
            + "): "
            + leadersPerRestart
            + ", terms used "
            + termsPerRestart);
  }

  /** Whether {@code leader} stays the running leader of {@code term}, and no node moves on. */
  private static boolean keptFor(TestCluster cluster, ProcedureNode<Work.Env> leader, long term) {
    try {
      await()
          .during(KEEP)
          .atMost(KEEP.plus(KEEP_SLACK))
          .until(
              () ->
                  leader.role() == NodeRole.LEADER_RUNNING
                      && leader.term() == term
                      && maxTerm(cluster) == term);
      return true;
    } catch (ConditionTimeoutException e) {
      LOG.warn(
          "the leader {} of term {} did not keep it: {}", leader.nodeId(), term, e.getMessage());
      return false;
    }
  }

  private static long maxTerm(TestCluster cluster) {
    return cluster.running().stream().mapToLong(ProcedureNode::term).max().orElse(0);
  }
}
