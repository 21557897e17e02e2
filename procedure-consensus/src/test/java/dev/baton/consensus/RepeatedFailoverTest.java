package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cycle of the consensus benchmark's failover phase, several times over: the running leader is
 * closed, a new leader runs a procedure to the end, the old leader restarts on its storage and
 * catches up; then the next leader is closed, restarted nodes included.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class RepeatedFailoverTest {
  /**
   * Kills of the leader: on a 3-node cluster the 4th kill is the first of a node that was itself
   * killed and restarted before.
   */
  static final int CYCLES = 4;

  @TempDir Path dir;

  @Test
  void everyNewLeaderFinishesAProcedureAcrossRepeatedLeaderRestarts() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      List<Long> done = new ArrayList<>();
      for (int cycle = 1; cycle <= CYCLES; cycle++) {
        ProcedureNode<Work.Env> old = cluster.awaitRunningLeader();
        cluster.kill(old.nodeId());
        ProcedureNode<Work.Env> next = cluster.awaitRunningLeader();
        assertNotEquals(old.nodeId(), next.nodeId(), "cycle " + cycle);

        String name = "cycle" + cycle;
        long procId =
            TestCluster.submitRetrying(next, () -> new Work(name), new NonceKey(1, cycle));
        ProcedureInfo info = ProcedureNodeTest.awaitFinished(next, procId);
        assertEquals(ProcedureState.SUCCESS, info.state(), "cycle " + cycle + ": " + info);
        done.add(procId);

        cluster.start(old.nodeId());
        cluster.awaitSameTables();
      }
      ProcedureNode<Work.Env> last = cluster.awaitRunningLeader();
      for (long procId : done) {
        assertEquals(
            ProcedureState.SUCCESS,
            ProcedureNodeTest.awaitFinished(last, procId).state(),
            "procedure " + procId + " after " + CYCLES + " leader restarts");
      }
    }
  }
}
