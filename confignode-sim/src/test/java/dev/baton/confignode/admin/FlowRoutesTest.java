package dev.baton.confignode.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cli.CliRun;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import java.net.HttpURLConnection;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The workflow routes of the admin API on one single-node ConfigNode shared by the class. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FlowRoutesTest {
  @TempDir static Path dir;

  /** A resume's body with only its required reason. */
  private static final String WHY = "{\"reason\":\"test\"}";

  private static SimCluster cluster;
  private static RawHttp http;

  @BeforeAll
  static void startNode() throws Exception {
    cluster = SimCluster.start(dir, 1, 0);
    http = new RawHttp(SimCluster.http(cluster.leader()));
  }

  @AfterAll
  static void stopNode() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static long submit(String body) {
    RawHttp.Reply r = http.post("/api/flows", body);
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    return r.json().path("flowId").asLong();
  }

  private static JsonNode awaitFlow(long id, String state) {
    return SimCluster.waiting()
        .until(
            () -> http.get("/api/flows/" + id).json(), f -> f.path("state").asText().equals(state));
  }

  private static String nodeState(JsonNode flow, String name) {
    for (JsonNode n : flow.path("nodes")) {
      if (n.path("name").asText().equals(name)) {
        return n.path("state").asText();
      }
    }
    throw new AssertionError("no node " + name + " in " + flow);
  }

  @Test
  void aFlowOfConfigNodeProceduresRunsToTheEnd() {
    long id =
        submit(
            """
            {"nodes":[{"name":"s","type":"Noop"},
                      {"name":"a","type":"Sleep","args":{"millis":5}},
                      {"name":"b","type":"Noop","trigger":{"kind":"ALL_FINISHED"}},
                      {"name":"e","type":"Noop","trigger":{"kind":"AT_LEAST","count":2}}],
             "edges":[{"parent":"s","child":"a"},{"parent":"s","child":"b"},
                      {"parent":"a","child":"e"},{"parent":"b","child":"e"}]}
            """);
    JsonNode flow = awaitFlow(id, "FINISH");
    assertEquals("FINISH", flow.path("state").asText());
    assertEquals(4, flow.path("nodes").size());
    for (JsonNode n : flow.path("nodes")) {
      assertEquals("SUCCESS", n.path("state").asText(), n.toString());
    }
    assertEquals("[\"s\"]", flow.path("nodes").get(1).path("parents").toString());
  }

  @Test
  void aSuspendedNodeIsResumedOverHttpAndOtherNodesAreRefused() {
    long id =
        submit(
            """
            {"nodes":[{"name":"s","type":"Noop"},
                      {"name":"bad","type":"DeleteDatabase","args":{"name":"nosuchdb"}},
                      {"name":"e","type":"Noop"}],
             "edges":[{"parent":"s","child":"bad"},{"parent":"bad","child":"e"}]}
            """);
    JsonNode pending = awaitFlow(id, "PENDING");
    assertEquals("PENDING", nodeState(pending, "bad"));
    assertEquals("PENDING", nodeState(pending, "e"));

    String refused =
        http.post("/api/flows/" + id + "/nodes/s/resume", WHY)
            .assertError(HttpURLConnection.HTTP_CONFLICT, ActionRoutes.REFUSED);
    assertTrue(refused.contains("not PENDING"), refused);
    http.post("/api/flows/" + id + "/nodes/nope/resume", WHY)
        .assertError(HttpURLConnection.HTTP_NOT_FOUND, "not_found");
    http.post("/api/flows/" + id + "/nodes/bad/resume", "{\"reason\":\"r\",\"action\":\"SKIP\"}")
        .assertError(HttpURLConnection.HTTP_BAD_REQUEST, "invalid_request");

    String succeed = "{\"reason\":\"db is gone\",\"action\":\"MARK_SUCCEEDED\"}";
    RawHttp.Reply resumed = http.post("/api/flows/" + id + "/nodes/bad/resume", succeed);
    assertEquals(HttpURLConnection.HTTP_OK, resumed.status(), resumed.body());
    assertEquals("SUCCESS", nodeState(resumed.json().path("flow"), "bad"));
    String again =
        http.post("/api/flows/" + id + "/nodes/bad/resume", succeed)
            .assertError(HttpURLConnection.HTTP_CONFLICT, ActionRoutes.REFUSED);
    // the node is SUCCESS now, or the whole flow finished meanwhile
    assertTrue(again.contains("not PENDING") || again.contains("is finished"), again);
    JsonNode done = awaitFlow(id, "FINISH");
    assertEquals("SUCCESS", nodeState(done, "e"));
  }

  @Test
  void theResumeCommandMarksAPendingNodeFailedAndTheFlowGoesOn() {
    long id =
        submit(
            """
            {"nodes":[{"name":"s","type":"Noop"},
                      {"name":"bad","type":"DeleteDatabase","args":{"name":"nosuchdb"}},
                      {"name":"e","type":"Noop","trigger":{"kind":"ALL_FINISHED"}}],
             "edges":[{"parent":"s","child":"bad"},{"parent":"bad","child":"e"}]}
            """);
    awaitFlow(id, "PENDING");
    CliRun r =
        CliRun.main(
            "resume",
            "--flow",
            Long.toString(id),
            "--node",
            "bad",
            "--action",
            "fail",
            "--reason",
            "nothing to delete",
            "--cluster",
            SimCluster.http(cluster.leader()));
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("ERROR"), r.out());
    JsonNode done = awaitFlow(id, "FINISH");
    assertEquals("ERROR", nodeState(done, "bad"));
    assertEquals("SUCCESS", nodeState(done, "e"), "ALL_FINISHED runs after a failed parent");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          malformed JSON  | {"nodes":[                                                             | malformed_json  | not valid JSON
          no nodes        | {"edges":[]}                                                           | invalid_request | 'nodes'
          unknown field   | {"nodes":[{"name":"a","type":"Noop"}],"edgs":[]}                       | invalid_request | unknown field 'edgs'
          unknown type    | {"nodes":[{"name":"a","type":"Explode"}]}                              | invalid_request | unknown procedure type 'Explode'
          bad args        | {"nodes":[{"name":"a","type":"Sleep","args":{"millis":-1}}]}           | invalid_request | millis must be >= 0
          bad name        | {"nodes":[{"name":"a b","type":"Noop"}]}                               | invalid_request | node name must match
          cycle           | {"nodes":[{"name":"s","type":"Noop"},{"name":"a","type":"Noop"},{"name":"b","type":"Noop"},{"name":"e","type":"Noop"}],"edges":[{"parent":"s","child":"a"},{"parent":"a","child":"b"},{"parent":"b","child":"a"},{"parent":"b","child":"e"}]} | invalid_request | cycle: a -> b -> a
          two starts      | {"nodes":[{"name":"a","type":"Noop"},{"name":"b","type":"Noop"},{"name":"e","type":"Noop"}],"edges":[{"parent":"a","child":"e"},{"parent":"b","child":"e"}]} | invalid_request | exactly one start node
          dangling edge   | {"nodes":[{"name":"a","type":"Noop"}],"edges":[{"parent":"a","child":"x"}]} | invalid_request | unknown node 'x'
          bad trigger     | {"nodes":[{"name":"a","type":"Noop","trigger":{"kind":"SOMETIMES"}}]}  | invalid_request | kind
          bad policy      | {"nodes":[{"name":"a","type":"Noop","onFailure":"PANIC"}]}            | invalid_request | onFailure
          """)
  void badFlowsAreRefusedWithAClearErrorAndNothingIsSubmitted(
      String name, String body, String error, String contains) {
    int before = http.get("/api/procedures").json().size();
    String message =
        http.post("/api/flows", body).assertError(HttpURLConnection.HTTP_BAD_REQUEST, error);
    assertTrue(message.contains(contains), name + ": " + message);
    assertEquals(before, http.get("/api/procedures").json().size(), "nothing submitted");
  }

  @Test
  void unknownFlowsAndBadPathsAre4xx() {
    http.get("/api/flows/999999").assertError(HttpURLConnection.HTTP_NOT_FOUND, "not_found");
    http.get("/api/flows/x").assertError(HttpURLConnection.HTTP_BAD_REQUEST, "invalid_request");
    http.get("/api/flows").assertError(HttpURLConnection.HTTP_BAD_METHOD, "method_not_allowed");
    long noop = http.post("/api/procedures", "{\"type\":\"Noop\"}").json().path("procId").asLong();
    String msg =
        http.get("/api/flows/" + noop).assertError(HttpURLConnection.HTTP_NOT_FOUND, "not_found");
    assertTrue(msg.contains("no flow with id " + noop), msg);
    http.post("/api/flows/999999/nodes/a/resume", WHY)
        .assertError(HttpURLConnection.HTTP_NOT_FOUND, "not_found");
  }
}
