package dev.baton.confignode.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.net.HttpURLConnection;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The ConfigNode fault hold ({@code --faults}, {@code /api/faults/hold}) on a 3-node cluster: a
 * procedure stops before the named state on the node the hold was set on, shows it, goes on when
 * released; a failover ends the hold and the new leader runs the state; bad holds are refused.
 */
@Timeout(180)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultHoldTest {
  static final String HOLD = "/api/faults/hold";

  @TempDir static Path dir;

  private static SimCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = SimCluster.start(dir, 3, 0, true);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @AfterEach
  void releaseHolds() {
    for (ConfigNodeServer n : cluster.nodes()) {
      n.holds().releaseAll();
    }
  }

  private static RawHttp http(ConfigNodeServer node) {
    return new RawHttp(SimCluster.http(node));
  }

  private static void hold(ConfigNodeServer node, String type, String state) {
    RawHttp.Reply r =
        http(node).post(HOLD, "{\"type\":\"" + type + "\",\"state\":\"" + state + "\"}");
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    assertEquals(type, r.json().path("holds").path(0).path("type").asText(), r.body());
  }

  /** Waits until {@code node} lists {@code procId} as held before {@code state}. */
  private static void awaitHeld(ConfigNodeServer node, long procId, String state) {
    SimCluster.waiting()
        .until(
            () -> {
              for (JsonNode h : http(node).get(HOLD).json().path("held")) {
                if (h.path("procId").asLong() == procId && h.path("state").asText().equals(state)) {
                  return true;
                }
              }
              return false;
            });
  }

  /** Sets a hold of Noop at {@code state} on {@code node}, submits a Noop, waits until held. */
  private static long submitHeldNoop(ConfigNodeServer node, String state) {
    hold(node, "Noop", state);
    long id = cluster.submit("Noop");
    awaitHeld(node, id, state);
    return id;
  }

  @Test
  @Order(1)
  void aHoldStopsAProcedureBeforeTheNamedStateUntilReleased() throws Exception {
    ConfigNodeServer leader = cluster.leader();
    long id = submitHeldNoop(leader, "SECOND");

    JsonNode p = http(leader).get("/api/procedures/" + id).json();
    assertEquals("SECOND", p.path("step").asText(), p::toString);
    assertEquals("RUNNABLE", p.path("state").asText(), p::toString);
    assertTrue(p.path("waitReason").asText().contains("fault hold"), p::toString);
    assertFalse(cluster.info(id).orElseThrow().finished());

    RawHttp.Reply released = http(leader).send("DELETE", HOLD, null);
    assertEquals(HttpURLConnection.HTTP_OK, released.status(), released.body());
    assertEquals(1, released.json().path("released").asInt(), released.body());
    assertTrue(released.json().path("holds").isEmpty(), released.body());
    ProcedureInfo done = cluster.awaitSuccess(id);
    assertEquals("THIRD", done.stepName());
  }

  @Test
  @Order(2)
  void aHoldSetOnAFollowerDoesNotHoldTheLeader() throws Exception {
    ConfigNodeServer follower = cluster.follower();
    hold(follower, "Noop", "FIRST");
    long id = cluster.submit("Noop");
    assertEquals(ProcedureState.SUCCESS, cluster.awaitSuccess(id).state());
    assertTrue(follower.holds().held().isEmpty(), () -> "held " + follower.holds().held());
  }

  @ParameterizedTest(name = "{0}")
  @Order(3)
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          unknown type      | POST | /api/faults/hold  | {"type":"Explode","state":"A"}      | 400 | invalid_request | unknown procedure type 'Explode'
          unknown state     | POST | /api/faults/hold  | {"type":"Noop","state":"FOURTH"}    | 400 | invalid_request | its states: [FIRST, SECOND, THIRD]
          missing state     | POST | /api/faults/hold  | {"type":"Noop"}                     | 400 | invalid_request | needs 'type' and 'state'
          unknown field     | POST | /api/faults/hold  | {"type":"Noop","state":"FIRST","x":1} | 400 | invalid_request | unknown field 'x'
          not JSON          | POST | /api/faults/hold  | hold                                | 400 | malformed_json  | not valid JSON
          wrong method      | PUT  | /api/faults/hold  | `{}`                                | 405 | method_not_allowed | use GET, POST or DELETE
          unknown path      | GET  | /api/faults/other |                                     | 404 | not_found       | no such path
          """)
  void badHoldsAreRefusedWithAClearError(
      String name, String method, String path, String body, int status, String error, String says)
      throws Exception {
    ConfigNodeServer leader = cluster.leader();
    RawHttp.Reply r =
        http(leader)
            .send(
                method,
                path,
                body == null ? null : body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    String message = r.assertError(status, error);
    assertTrue(message.contains(says), () -> name + ": " + message);
    assertTrue(leader.holds().holds().isEmpty(), "a refused hold is not set");
  }

  /** Last: it stops the leader for good. */
  @Test
  @Order(4)
  void aFailoverEndsTheHoldAndTheNewLeaderRunsTheState() throws Exception {
    ConfigNodeServer leader = cluster.leader();
    long id = submitHeldNoop(leader, "THIRD");

    cluster.stopNode(leader);
    ProcedureInfo done = cluster.awaitSuccess(id);
    assertEquals("THIRD", done.stepName());
    ConfigNodeServer next = cluster.leader();
    assertNotEquals(leader, next);
    assertTrue(next.holds().held().isEmpty());
    assertTrue(leader.holds().held().isEmpty(), "the stopped executor's worker left the hold");
  }
}
