package dev.baton.confignode.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.consensus.NodeRole;
import java.net.HttpURLConnection;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /api/membership/transfer-leadership}, which {@code rolling-restart} asks of the
 * leader, and the process fields of {@code GET /api/cluster} it tells a restarted node by: a
 * follower refuses with 409 {@code not_leader} naming the leader, a missing or unknown target is a
 * 400, and the leader hands its leadership to the member named.
 */
@Timeout(120)
class LeadershipTransferRouteTest {
  private static final String PATH = "/api/membership/transfer-leadership";

  @TempDir Path dir;

  @Test
  void theLeaderHandsItsLeadershipToTheMemberNamedAndOthersRefuse() throws Exception {
    try (SimCluster cluster = SimCluster.start(dir, 3, 0)) {
      ConfigNodeServer leader = cluster.leader();
      ConfigNodeServer follower = cluster.follower();
      String leaderId = leader.node().nodeId();
      String to = follower.node().nodeId();
      RawHttp atLeader = new RawHttp(SimCluster.http(leader));

      JsonNode view = atLeader.get("/api/cluster").json();
      assertEquals(ProcessHandle.current().pid(), view.path("pid").asLong(), view::toString);
      assertTrue(view.path("startedAtMillis").asLong() > 0, view::toString);

      String refused =
          new RawHttp(SimCluster.http(follower))
              .post(PATH, "{\"to\":\"" + leaderId + "\"}")
              .assertError(HttpURLConnection.HTTP_CONFLICT, MembershipRoutes.NOT_LEADER);
      assertTrue(refused.contains("the leader is " + leaderId), refused);
      atLeader
          .post(PATH, "{}")
          .assertError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST);
      String unknown =
          atLeader
              .post(PATH, "{\"to\":\"cn9\"}")
              .assertError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST);
      assertTrue(unknown.contains("'cn9' is not another member"), unknown);

      RawHttp.Reply done = atLeader.post(PATH, "{\"to\":\"" + to + "\"}");
      assertEquals(HttpURLConnection.HTTP_OK, done.status(), done.body());
      assertEquals(leaderId, done.json().path("from").asText(), done.body());
      assertEquals(to, done.json().path("to").asText(), done.body());
      SimCluster.waiting()
          .until(
              () ->
                  follower.node().isLeader() && follower.node().role() == NodeRole.LEADER_RUNNING);
      assertEquals(follower, cluster.leader());
    }
  }
}
