package dev.baton.confignode.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import java.net.HttpURLConnection;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower's answers name the leader's admin API address ({@link NodeApiClient#LEADER_HEADER}),
 * so that a client that reached a follower goes to the leader next; the leader's answers name none.
 */
@Timeout(120)
class LeaderHeaderTest {
  @TempDir Path dir;

  @Test
  void aFollowerNamesTheLeaderAndTheLeaderNamesNone() throws Exception {
    try (SimCluster cluster = SimCluster.start(dir, 3, 0)) {
      ConfigNodeServer leader = cluster.leader();
      ConfigNodeServer follower = cluster.follower();
      RawHttp atFollower = new RawHttp(SimCluster.http(follower));

      // the leader publishes its address once its executor runs; the follower names it from then
      SimCluster.waiting()
          .until(
              () ->
                  atFollower
                      .get("/api/cluster")
                      .header(NodeApiClient.LEADER_HEADER)
                      .equals(Optional.of(SimCluster.http(leader))));
      RawHttp.Reply read = atFollower.get("/api/procedures");
      assertEquals(HttpURLConnection.HTTP_OK, read.status(), read.body());
      assertEquals(Optional.of(SimCluster.http(leader)), read.header(NodeApiClient.LEADER_HEADER));

      RawHttp.Reply atLeader = new RawHttp(SimCluster.http(leader)).get("/api/cluster");
      assertEquals(HttpURLConnection.HTTP_OK, atLeader.status(), atLeader.body());
      assertTrue(
          atLeader.header(NodeApiClient.LEADER_HEADER).isEmpty(),
          "the leader named a leader: " + atLeader.headers());
    }
  }
}
