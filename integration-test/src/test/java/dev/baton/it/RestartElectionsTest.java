package dev.baton.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.cluster.ProcessCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restarts of ConfigNode processes (3, secured): a cluster killed and started as a whole, again and
 * again, elects one leader each time and keeps it; a member killed while the others commit applies
 * what it missed once started again. Times are logged, not asserted ({@link RestartBenchmark}
 * measures them).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RestartElectionsTest {
  private static final Logger LOG = LoggerFactory.getLogger(RestartElectionsTest.class);

  static final int NODES = 3;

  /**
   * Whole restarts per run: each costs two process starts' worth of time, so the suite runs a few;
   * {@code WholeRestartLeadershipTest} (procedure-consensus) runs 20 in process and {@link
   * RestartBenchmark} counts leaders over as many as it is asked for.
   */
  static final int WHOLE_RESTARTS = 5;

  /**
   * How long the cluster is watched after each restart: a leader that loses its followers' answers
   * steps down one maximum election timeout (600 ms) after it last heard from them.
   */
  static final Duration QUIET = Duration.ofSeconds(5);

  /**
   * The ConfigNodes' election timeouts for the whole restarts: twice and four times the default, as
   * the in-process ConfigNode tests use. At the default 300/600 ms, on this 2-core machine loaded
   * 15-25 deep by other builds, the first leader of half the restarts stepped down: a new leader
   * must hear from a majority within one maximum timeout, and the first appends to followers just
   * started (new TLS streams, cold JVMs) took longer (README, "Restarts").
   */
  static final List<String> ELECTION_TIMEOUTS = List.of("--election-timeout-ms", "1200,2400");

  /** How long the killed member stays down while the others commit. */
  static final Duration MEMBER_DOWN = Duration.ofSeconds(5);

  @Test
  void aWholeClusterRestartedAgainAndAgainElectsOneLeaderEachTime() throws Exception {
    List<Long> changes = new ArrayList<>();
    List<Long> running = new ArrayList<>();
    try (ProcessCluster cluster = ProcessCluster.start(NODES, 0, false, ELECTION_TIMEOUTS)) {
      for (int i = 0; i < WHOLE_RESTARTS; i++) {
        RestartProbes.WholeRestart w = RestartProbes.restartAll(cluster, QUIET);
        changes.add(w.leaderChanges());
        running.add(w.fromMajorityMillis());
      }
    }
    Map<Long, Integer> distribution = new TreeMap<>();
    changes.forEach(c -> distribution.merge(c, 1, Integer::sum));
    LOG.info(
        "{} whole restarts: leaders seen per restart {} (restarts by count {}); ms from a"
            + " majority's Raft start to a running leader {}",
        WHOLE_RESTARTS,
        changes,
        distribution,
        running);
    assertEquals(Map.of(1L, WHOLE_RESTARTS), distribution, "leaders per restart: " + changes);
  }

  @Test
  void aRestartedMemberAppliesWhatItMissed() throws Exception {
    try (ProcessCluster cluster = ProcessCluster.start(NODES, 0, false)) {
      String leader = cluster.leader();
      String member = cluster.nodeIds().stream().filter(id -> !id.equals(leader)).findFirst().get();
      long before = cluster.cluster(member).path("appliedIndex").asLong();
      RestartProbes.CatchUp c = RestartProbes.restartMember(cluster, member, MEMBER_DOWN);
      LOG.info(
          "{} restarted: Raft server up {} ms after its process started; held the log to index {}"
              + " {} ms after that, applied it after {} ms",
          member,
          c.raftStartMillis(),
          c.index(),
          c.matchedMillis(),
          c.appliedMillis());
      assertTrue(c.index() > before, "the log moved on while " + member + " was down");
      long applied = cluster.cluster(member).path("appliedIndex").asLong();
      assertTrue(applied >= c.index(), member + " applied " + applied + " of " + c.index());
    }
  }
}
