package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureState;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** An operator (or a benchmark) asks a node for a snapshot now, on the leader and on a follower. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TakeSnapshotTest {
  @TempDir Path dir;

  @Test
  void aNodeTakesASnapshotOnRequestCoveringWhatItApplied() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      long id = leader.submit(new Work("p"), null).get(30, TimeUnit.SECONDS);
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, id).state());
      cluster.awaitSameTables();

      for (ProcedureNode<Work.Env> node : cluster.running()) {
        long applied = node.stateMachine().getLastAppliedTermIndex().getIndex();
        long index = node.takeSnapshot().get(30, TimeUnit.SECONDS);
        assertTrue(index >= applied, node.nodeId() + ": snapshot " + index + " < " + applied);
        assertEquals(
            index,
            CorruptionTest.snapshotIndex(
                CorruptionTest.latestSnapshot(cluster.snapshotDir(node.nodeId()))),
            node.nodeId() + ": the newest snapshot file is the one taken");
      }
    }
  }

  @Test
  void aClosedNodeRefusesWithAClearError() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      cluster.awaitRunningLeader();
      ProcedureNode<Work.Env> follower = cluster.follower();
      String id = follower.nodeId();
      cluster.kill(id);
      ExecutionException e =
          assertThrows(
              ExecutionException.class, () -> follower.takeSnapshot().get(30, TimeUnit.SECONDS));
      assertTrue(e.getCause().getMessage().contains(id), e.getCause().toString());
    }
  }
}
