package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A linearizable read on a follower sees every write the leader acknowledged before the read
 * started, over mutual TLS (where a member's Raft port runs read index requests on its transport
 * threads, {@link ReadIndexCallExecutor}): each write is read back from both followers at once,
 * before they can have learned of its commit by a heartbeat. A read answered from the follower's
 * applied state without the read index round trip would miss some of them.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FollowerReadAfterWriteTest {
  /** Writes, each read back at once from both followers. */
  private static final int WRITES = 100;

  @TempDir Path dir;

  @Test
  void aFollowerReadAtOnceAfterAnAcknowledgedWriteSeesIt() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3)) {
      for (String id : cluster.peers.keySet()) {
        cluster.start(id, b -> b.tls(MembershipChangeTest.tls(id)));
      }
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      LeaderContext context = leader.leaderContext().orElseThrow();
      List<ProcedureNode<Work.Env>> followers = new ArrayList<>(cluster.running());
      followers.remove(leader);
      assertEquals(2, followers.size());
      for (int i = 0; i < WRITES; i++) {
        String key = "k/" + i;
        leader.metadata().write(context, Map.of(key, bytes(i)), List.of());
        List<CompletableFuture<SortedMap<String, byte[]>>> reads = new ArrayList<>();
        for (ProcedureNode<Work.Env> f : followers) {
          reads.add(f.metadata().read(key));
        }
        for (int j = 0; j < reads.size(); j++) {
          SortedMap<String, byte[]> seen = reads.get(j).get(30, TimeUnit.SECONDS);
          assertEquals(
              List.of(key),
              List.copyOf(seen.keySet()),
              "write " + i + " as read on " + followers.get(j).nodeId());
        }
      }
    }
  }

  private static byte[] bytes(int i) {
    return Integer.toString(i).getBytes(StandardCharsets.UTF_8);
  }
}
