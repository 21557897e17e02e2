package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.baton.procedure.NonceKey;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member that starts late (its process was slow) and loses the leader before it holds the log.
 * Ratis counts no vote of a member whose log is empty once the group has committed entries (it
 * cannot tell such a member from one whose disk was wiped), so the other survivor cannot win an
 * election: the group waits until the lost member is back. A member that holds the log counts, and
 * the survivors elect at once; that is why a cluster counts as up only when every member holds the
 * log.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LateMemberElectionTest {
  private static final int ENTRIES = 20;

  @TempDir Path dir;

  /** Starts n1 and n3, writes {@link #ENTRIES} procedures through the leader, starts n2. */
  private static ProcedureNode<Work.Env> twoThenLate(TestCluster cluster) throws Exception {
    cluster.start("n1");
    cluster.start("n3");
    ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
    for (int i = 1; i <= ENTRIES; i++) {
      leader.submit(new Work("w" + i), new NonceKey(1, i)).get(30, TimeUnit.SECONDS);
    }
    cluster.start("n2");
    return leader;
  }

  @Test
  void aLateMemberThatHoldsTheLogCountsAndTheSurvivorsElect() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3)) {
      ProcedureNode<Work.Env> leader = twoThenLate(cluster);
      long committed = leader.commitIndex();
      ProcedureNode<Work.Env> late = cluster.node("n2");
      await("n2 holds the log")
          .atMost(TestCluster.ELECTION_WAIT)
          .until(() -> late.stateMachine().appliedIndex() >= committed);

      cluster.kill(leader.nodeId());

      ProcedureNode<Work.Env> next = cluster.awaitRunningLeader();
      assertNotEquals(leader.nodeId(), next.nodeId());
    }
  }

  @Test
  void aLateMemberWithAnEmptyLogWaitsForTheLostMemberThenEveryoneCatchesUp() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3)) {
      ProcedureNode<Work.Env> leader = twoThenLate(cluster);
      String lost = leader.nodeId();
      cluster.kill(lost);

      cluster.start(lost);
      cluster.awaitRunningLeader();
      cluster.awaitSameTables(); // n2 included: it received the whole log
    }
  }
}
