package dev.baton.confignode.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.PromText;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import java.net.HttpURLConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A follower's admin API answers a procedure's read by the leader's read index (Baton's call
 * between members), an unknown id with a 404 as the leader does, and its {@code /metrics} counts
 * those reads; the leader, which reads by its own lease, counts none.
 */
@Timeout(180)
class FollowerReadMetricsTest {
  private static final int READS = 20;

  /** Added to a procedure's id: an id no procedure of this test has. */
  private static final long UNKNOWN_ID_OFFSET = 1_000_000;

  @RegisterExtension static final SimClusterExtension CLUSTER = new SimClusterExtension(3, 0);

  @Test
  void aFollowersReadsGoByTheLeadersReadIndexAndAreCounted() {
    SimCluster cluster = CLUSTER.cluster();
    long id = cluster.submit("Noop");
    cluster.awaitSuccess(id);
    ConfigNodeServer follower = cluster.follower();
    RawHttp http = new RawHttp(SimCluster.http(follower));
    PromText before = PromText.parse(scrape(http));
    for (int i = 0; i < READS; i++) {
      RawHttp.Reply r = http.get("/api/procedures/" + id);
      assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
      assertEquals(id, r.json().path("procId").asLong(), r.body());
    }
    RawHttp.Reply unknown = http.get("/api/procedures/" + (id + UNKNOWN_ID_OFFSET));
    assertEquals(HttpURLConnection.HTTP_NOT_FOUND, unknown.status(), unknown.body());
    assertEquals("not_found", unknown.json().path("error").asText(), unknown.body());
    PromText after = PromText.parse(scrape(http));
    assertEquals(
        READS + 1,
        after.get("baton_follower_reads_total") - before.get("baton_follower_reads_total"),
        "reads by the leader's read index");
    assertEquals(
        0.0,
        after.get("baton_follower_read_fallbacks_total")
            - before.get("baton_follower_read_fallbacks_total"),
        "reads that fell back to Ratis' read index");
    PromText leader = PromText.parse(scrape(new RawHttp(SimCluster.http(cluster.leader()))));
    assertEquals(0.0, leader.get("baton_follower_reads_total"));
    assertTrue(leader.get("baton_read_index_commit_sends_total") >= 0.0);
  }

  private static String scrape(RawHttp http) {
    RawHttp.Reply r = http.get("/metrics");
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    return r.body();
  }
}
