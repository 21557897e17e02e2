package dev.baton.confignode.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Submissions answer once committed, and {@code GET /api/procedures/ID?waitFor=finished} waits for
 * the procedure (on the leader and on a follower), answers its current view when its timeout
 * passes, holds no handler while it waits, and refuses bad values with a 400. A submission with
 * {@code ?waitFor=finished} answers as that long poll would, in one request.
 */
@Timeout(180)
class ProcedureWaitTest {
  /** A sleep that outlives the test: it ends only by abort. */
  private static final long LONG_SLEEP_MILLIS = 600_000;

  /** A sleep long enough that a submit answer after it ran would be noticed. */
  private static final long SLEEP_MILLIS = 3_000;

  /** A long poll's timeout that a long sleep outlasts. */
  private static final long SHORT_WAIT_MILLIS = 300;

  /**
   * More long polls at once than the admin API handles requests at once plus those it lets wait for
   * a handler: blocking handlers would answer some of them 503.
   */
  private static final int MANY_WAITERS = 96;

  private static final long NONCE_GROUP = 57;
  private static final AtomicLong NONCES = new AtomicLong();

  @RegisterExtension static final SimClusterExtension CLUSTER = new SimClusterExtension(3, 0);

  private static ConfigNodeServer leader() {
    return CLUSTER.cluster().leader();
  }

  private static RawHttp http(ConfigNodeServer node) {
    return new RawHttp(SimCluster.http(node));
  }

  private static JsonNode ok(RawHttp.Reply r) {
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    return r.json();
  }

  private static long submitSleep(ConfigNodeServer node, long millis) {
    String body = sleepBody(millis, NONCES.incrementAndGet());
    long id = ok(http(node).post("/api/procedures", body)).path("procId").asLong();
    assertTrue(id > 0);
    return id;
  }

  private static void abort(long id) {
    ok(http(leader()).post("/api/procedures/" + id + "/abort", null));
  }

  private static ConfigNodeServer node(String which) {
    return which.equals("leader") ? leader() : CLUSTER.cluster().follower();
  }

  @ParameterizedTest(name = "on the {0}")
  @ValueSource(strings = {"leader", "follower"})
  void theSubmitAnswerComesBeforeTheProcedureRan(String which) {
    long id = submitSleep(node(which), SLEEP_MILLIS);
    JsonNode now = ok(http(leader()).get("/api/procedures/" + id));
    assertFalse(now.path("finished").asBoolean(), now::toString);
    JsonNode done = ok(http(node(which)).get("/api/procedures/" + id + "?waitFor=finished"));
    assertTrue(done.path("finished").asBoolean(), done::toString);
  }

  @ParameterizedTest(name = "on the {0}")
  @ValueSource(strings = {"leader", "follower"})
  void aLongPollAnswersOnceTheProcedureFinished(String which) {
    long id = submitSleep(leader(), SLEEP_MILLIS);
    JsonNode done =
        ok(http(node(which)).get("/api/procedures/" + id + "?waitFor=finished&timeout=20s"));
    assertEquals(id, done.path("procId").asLong());
    assertTrue(done.path("finished").asBoolean(), done::toString);
    assertEquals("SUCCESS", done.path("state").asText(), done::toString);
  }

  @ParameterizedTest(name = "on the {0}")
  @ValueSource(strings = {"leader", "follower"})
  void aLongPollAnswersNotFinishedWhenItsTimeoutPasses(String which) {
    long id = submitSleep(leader(), LONG_SLEEP_MILLIS);
    try {
      long start = System.nanoTime();
      JsonNode view =
          ok(
              http(node(which))
                  .get(
                      "/api/procedures/"
                          + id
                          + "?waitFor=finished&timeout="
                          + SHORT_WAIT_MILLIS
                          + "ms"));
      long waitedMillis = (System.nanoTime() - start) / 1_000_000;
      assertFalse(view.path("finished").asBoolean(), view::toString);
      assertEquals(id, view.path("procId").asLong());
      assertTrue(waitedMillis >= SHORT_WAIT_MILLIS, "answered after " + waitedMillis + " ms");
    } finally {
      abort(id);
    }
  }

  @Test
  void longPollsHoldNoHandler() throws Exception {
    ConfigNodeServer node = CLUSTER.cluster().follower();
    long id = submitSleep(leader(), LONG_SLEEP_MILLIS);
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    try {
      List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
      for (int i = 0; i < MANY_WAITERS; i++) {
        HttpRequest req =
            HttpRequest.newBuilder(
                    URI.create(
                        "http://"
                            + SimCluster.http(node)
                            + "/api/procedures/"
                            + id
                            + "?waitFor=finished&timeout=3s"))
                .timeout(Duration.ofSeconds(60))
                .build();
        polls.add(client.sendAsync(req, HttpResponse.BodyHandlers.ofString()));
      }
      // the node still answers other requests while they all wait
      ok(http(node).get("/api/cluster"));
      for (CompletableFuture<HttpResponse<String>> p : polls) {
        HttpResponse<String> r = p.get();
        assertEquals(HttpURLConnection.HTTP_OK, r.statusCode(), r.body());
        assertFalse(Json.LENIENT.readTree(r.body()).path("finished").asBoolean(), r.body());
      }
    } finally {
      abort(id);
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          a word            | ?waitFor=finished&timeout=abc
          a negative number | ?waitFor=finished&timeout=-1s
          too long          | ?waitFor=finished&timeout=21s
          minutes           | ?waitFor=finished&timeout=1m
          another event     | ?waitFor=started
          no waitFor        | ?timeout=5s
          """)
  void badValuesAre400(String name, String query) {
    long id = submitSleep(leader(), 1);
    String message =
        http(CLUSTER.cluster().follower())
            .get("/api/procedures/" + id + query)
            .assertError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST);
    assertTrue(message.contains("waitFor") || message.contains("timeout"), message);
  }

  private static String sleepBody(long millis, long nonce) {
    return "{\"type\":\"Sleep\",\"args\":{\"millis\":"
        + millis
        + "},\"nonce\":{\"group\":"
        + NONCE_GROUP
        + ",\"nonce\":"
        + nonce
        + "}}";
  }

  private static RawHttp.Reply submitAndWait(ConfigNodeServer node, String timeout, String body) {
    return http(node).post("/api/procedures?waitFor=finished&timeout=" + timeout, body);
  }

  @ParameterizedTest(name = "on the {0}")
  @ValueSource(strings = {"leader", "follower"})
  void aSubmissionThatWaitsAnswersTheFinishedProcedure(String which) {
    long nonce = NONCES.incrementAndGet();
    JsonNode done = ok(submitAndWait(node(which), "20s", sleepBody(SLEEP_MILLIS, nonce)));
    assertTrue(done.path("finished").asBoolean(), done::toString);
    assertEquals("SUCCESS", done.path("state").asText(), done::toString);
    assertEquals("Sleep", done.path("type").asText(), done::toString);
    // the same procedure as the leader knows it, and a retry with the nonce names it again
    long id = done.path("procId").asLong();
    assertTrue(ok(http(leader()).get("/api/procedures/" + id)).path("finished").asBoolean());
    long again =
        ok(http(leader()).post("/api/procedures", sleepBody(SLEEP_MILLIS, nonce)))
            .path("procId")
            .asLong();
    assertEquals(id, again);
  }

  @ParameterizedTest(name = "on the {0}")
  @ValueSource(strings = {"leader", "follower"})
  void aSubmissionThatWaitsAnswersNotFinishedWhenItsTimeoutPasses(String which) {
    long start = System.nanoTime();
    JsonNode view =
        ok(
            submitAndWait(
                node(which),
                SHORT_WAIT_MILLIS + "ms",
                sleepBody(LONG_SLEEP_MILLIS, NONCES.incrementAndGet())));
    long waitedMillis = (System.nanoTime() - start) / 1_000_000;
    long id = view.path("procId").asLong();
    try {
      assertTrue(id > 0, view::toString);
      assertFalse(view.path("finished").asBoolean(), view::toString);
      assertTrue(waitedMillis >= SHORT_WAIT_MILLIS, "answered after " + waitedMillis + " ms");
    } finally {
      abort(id);
    }
  }

  @Test
  void aSubmissionWithABadWaitIs400AndSubmitsNothing() {
    long before = submitSleep(leader(), 1);
    String message =
        submitAndWait(CLUSTER.cluster().follower(), "21s", sleepBody(1, NONCES.incrementAndGet()))
            .assertError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST);
    assertTrue(message.contains("timeout"), message);
    JsonNode later = ok(http(leader()).get("/api/procedures?after=" + before));
    assertEquals(0, later.size(), later::toString);
  }

  @Test
  void theClientSubmitsAndAwaitsInOneCall() throws Exception {
    NodeApiClient api = CLUSTER.cluster().api();
    long nonce = NONCES.incrementAndGet();
    JsonNode args = Json.LENIENT.createObjectNode().put("millis", SLEEP_MILLIS);
    JsonNode done = api.submitAndAwait("Sleep", args, NONCE_GROUP, nonce, Duration.ofSeconds(30));
    assertTrue(done.path("finished").asBoolean(), done::toString);
    assertEquals("SUCCESS", done.path("state").asText(), done::toString);
    // submitted again with its nonce: the same procedure, already finished
    JsonNode again = api.submitAndAwait("Sleep", args, NONCE_GROUP, nonce, Duration.ofSeconds(1));
    assertEquals(done.path("procId").asLong(), again.path("procId").asLong(), again::toString);
    assertTrue(again.path("finished").asBoolean(), again::toString);

    JsonNode longArgs = Json.LENIENT.createObjectNode().put("millis", LONG_SLEEP_MILLIS);
    JsonNode waiting =
        api.submitAndAwait(
            "Sleep",
            longArgs,
            NONCE_GROUP,
            NONCES.incrementAndGet(),
            Duration.ofMillis(SHORT_WAIT_MILLIS));
    try {
      assertFalse(waiting.path("finished").asBoolean(), waiting::toString);
    } finally {
      abort(waiting.path("procId").asLong());
    }
  }

  @Test
  void anUnknownProcedureIs404() {
    http(CLUSTER.cluster().follower())
        .get("/api/procedures/987654321?waitFor=finished&timeout=1s")
        .assertError(HttpURLConnection.HTTP_NOT_FOUND, HttpErrors.NOT_FOUND);
  }
}
