package dev.baton.it.tls;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.consensus.ProcedureNode;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A 3-node cluster whose Raft connections are all mutual TLS. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MutualTlsClusterTest {
  @TempDir Path dir;

  @Test
  void electsCommitsAndSurvivesALeaderKill() throws Exception {
    try (TlsCluster cluster = new TlsCluster(dir, List.of("a", "b", "c"))) {
      for (String id : cluster.peers.keySet()) {
        cluster.start(id);
      }
      assertTrue(cluster.running().stream().allMatch(ProcedureNode::isTls));
      ProcedureNode<Object> leader = TlsCluster.awaitLeader(cluster.running());
      cluster.submitAndFinish(leader);

      cluster.close(leader.nodeId());
      ProcedureNode<Object> next = TlsCluster.awaitLeader(cluster.running());
      assertNotEquals(leader.nodeId(), next.nodeId());
      // new work, submitted through a follower if there is one: it forwards over TLS
      ProcedureNode<Object> via =
          cluster.running().stream().filter(n -> n != next).findFirst().orElse(next);
      cluster.submitAndFinish(via);
    }
  }
}
