package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that knows no leader makes its channels to its peers reconnect now, again and again (this
 * Ratis lets it), and stops once it knows a leader.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PeerReconnectTest {
  static final Duration MIN = Duration.ofMillis(100);
  static final Duration MAX = Duration.ofMillis(200);

  /** Resets that show the node keeps at it: several rounds for each of its two peers. */
  static final long RESETS_WHILE_ALONE = 10;

  /** How long the resets must stay still once a leader is known: many of their periods. */
  static final Duration STILL = MIN.multipliedBy(10);

  @TempDir Path dir;

  @Test
  void aNodeWithoutLeaderResetsItsPeerChannelsUntilItKnowsOne() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3, b -> b.electionTimeouts(MIN, MAX))) {
      ProcedureNode<Work.Env> alone = cluster.start("n1");
      PeerReconnect reconnect = alone.peer().reconnect();
      await()
          .atMost(TestCluster.ELECTION_WAIT)
          .until(() -> reconnect.resets() >= RESETS_WHILE_ALONE);

      cluster.start("n2");
      await().atMost(TestCluster.ELECTION_WAIT).until(() -> alone.leaderId().isPresent());
      AtomicLong last = new AtomicLong(-1);
      await()
          .during(STILL)
          .atMost(TestCluster.ELECTION_WAIT)
          .until(() -> last.getAndSet(reconnect.resets()) == reconnect.resets());
      assertTrue(alone.leaderId().isPresent(), "n1 still knows a leader");
    }
  }
}
