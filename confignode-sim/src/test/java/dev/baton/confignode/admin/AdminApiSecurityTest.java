package dev.baton.confignode.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.auth.Role;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.HttpLimits;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.http.JsonExchange;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.procedures.ProcedureLimits;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SlowClients;
import dev.baton.confignode.testing.TestTokens;
import java.net.HttpURLConnection;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin API of nodes started with a token file: who may do what (401, 403), requests a browser
 * could forge (415, a foreign Host), the audit log, and a node that slow clients cannot starve. Two
 * ConfigNodes with fault routes serve the whole class.
 */
@Timeout(120)
class AdminApiSecurityTest {
  /** Headers must arrive within this on these nodes. */
  static final Duration HEADER_TIMEOUT = Duration.ofSeconds(2);

  /** Slow clients that drip headers at once. */
  static final int DRIPPERS = 8;

  @TempDir static Path dir;

  private static SimCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    AdminApiSettings api =
        AdminApiSettings.LOOPBACK
            .withTokens(TestTokens.write(dir))
            .withLimits(HttpLimits.ADMIN.withHeaderTimeout(HEADER_TIMEOUT));
    cluster =
        SimCluster.start(
            dir,
            2,
            0,
            true,
            ProcedureLimits.DEFAULTS,
            api,
            TestTokens.TOKENS.get(Role.ADMIN),
            ConfigNodeServer.Config.DEFAULT_BREAK_DEADLOCKS);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static RawHttp as(Role role) {
    return anonymous().withToken(TestTokens.TOKENS.get(role));
  }

  private static RawHttp anonymous() {
    return new RawHttp(SimCluster.http(cluster.leader()));
  }

  private static int procedureCount() {
    RawHttp.Reply list = as(Role.READER).get("/api/procedures");
    assertEquals(HttpURLConnection.HTTP_OK, list.status(), list.body());
    return list.json().size();
  }

  private static final String NOOP = "{\"type\":\"Noop\"}";

  @Test
  void aRequestWithoutATokenIs401AndSaysWhatIsMissing() {
    String message = anonymous().get("/api/cluster").assertError(401, "unauthenticated");
    assertTrue(message.contains("Authorization: Bearer"), message);
    anonymous().get("/metrics").assertError(401, "unauthenticated");
    anonymous().withToken("x".repeat(40)).get("/api/cluster").assertError(401, "unauthenticated");
  }

  @Test
  void aReaderReadsButCannotSubmit() {
    assertEquals(HttpURLConnection.HTTP_OK, as(Role.READER).get("/api/cluster").status());
    RawHttp.Reply metrics = as(Role.READER).get("/metrics");
    assertEquals(HttpURLConnection.HTTP_OK, metrics.status(), metrics.body());
    int before = procedureCount();
    String message = as(Role.READER).post("/api/procedures", NOOP).assertError(403, "forbidden");
    assertTrue(message.contains("reader") && message.contains("needs operator"), message);
    assertEquals(before, procedureCount(), "a refused submission creates nothing");
  }

  @Test
  void anOperatorSubmitsAndAborts() {
    RawHttp.Reply r = as(Role.OPERATOR).post("/api/procedures", NOOP);
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    long id = r.json().path("procId").asLong();
    assertTrue(id > 0, r.body());
    RawHttp.Reply abort = as(Role.OPERATOR).post("/api/procedures/" + id + "/abort", null);
    assertEquals(HttpURLConnection.HTTP_OK, abort.status(), abort.body());
  }

  @Test
  void faultRoutesAreForAdminsOnly() {
    String hold = "{\"type\":\"Noop\",\"state\":\"SECOND\"}";
    String message = as(Role.OPERATOR).post("/api/faults/hold", hold).assertError(403, "forbidden");
    assertTrue(message.contains("needs admin"), message);
    RawHttp.Reply ok = as(Role.ADMIN).post("/api/faults/hold", hold);
    assertEquals(HttpURLConnection.HTTP_OK, ok.status(), ok.body());
    assertEquals(
        HttpURLConnection.HTTP_OK,
        as(Role.ADMIN).send("DELETE", "/api/faults/hold", null).status());
  }

  @Test
  void aPostThatIsNotJsonIs415AndSubmitsNothing() {
    int before = procedureCount();
    for (String type : new String[] {"text/plain", "application/x-www-form-urlencoded", ""}) {
      RawHttp.Reply r =
          as(Role.OPERATOR)
              .send(
                  "POST",
                  "/api/procedures",
                  NOOP.getBytes(StandardCharsets.UTF_8),
                  type.isEmpty()
                      ? Map.of("Content-Type", "text/plain;charset=UTF-8")
                      : Map.of("Content-Type", type));
      String message =
          r.assertError(
              JsonExchange.HTTP_UNSUPPORTED_MEDIA_TYPE, HttpErrors.UNSUPPORTED_MEDIA_TYPE);
      assertTrue(message.contains("application/json"), message);
    }
    assertEquals(before, procedureCount(), "a refused submission creates nothing");
  }

  @Test
  void aHostThatIsNotThisNodeIs403() throws Exception {
    ConfigNodeServer node = cluster.leader();
    String answer =
        SlowClients.exchange(
            "127.0.0.1",
            node.httpPort(),
            "GET /api/cluster HTTP/1.1\r\nHost: attacker.example:"
                + node.httpPort()
                + "\r\nAuthorization: Bearer "
                + TestTokens.TOKENS.get(Role.ADMIN)
                + "\r\nConnection: close\r\n\r\n");
    assertEquals(HttpURLConnection.HTTP_FORBIDDEN, SlowClients.status(answer), answer);
    assertTrue(answer.contains(HttpErrors.WRONG_HOST), answer);
    assertTrue(answer.contains("--http-host"), answer);
    String local =
        SlowClients.exchange(
            "127.0.0.1",
            node.httpPort(),
            "GET /api/cluster HTTP/1.1\r\nHost: localhost:"
                + node.httpPort()
                + "\r\nAuthorization: Bearer "
                + TestTokens.TOKENS.get(Role.READER)
                + "\r\nConnection: close\r\n\r\n");
    assertEquals(HttpURLConnection.HTTP_OK, SlowClients.status(local), local);
  }

  @Test
  void aFollowerForwardsTheCallersTokenToTheLeader() {
    RawHttp follower = new RawHttp(SimCluster.http(cluster.follower()));
    RawHttp.Reply locks = follower.withToken(TestTokens.TOKENS.get(Role.READER)).get("/api/locks");
    assertEquals(HttpURLConnection.HTTP_OK, locks.status(), locks.body());
    assertEquals(
        cluster.leader().node().nodeId(), locks.json().path("nodeId").asText(), locks.body());
    follower.get("/api/locks").assertError(401, "unauthenticated");
  }

  @Test
  void everyActionAndRefusalIsOneAuditLineWithoutTheToken() throws Exception {
    ConfigNodeServer node = cluster.leader();
    String marker = "audited-" + System.nanoTime();
    RawHttp.Reply ok =
        as(Role.OPERATOR)
            .post(
                "/api/procedures",
                "{\"type\":\"CreateDatabase\",\"args\":{\"name\":\"" + marker + "\"}}");
    assertEquals(HttpURLConnection.HTTP_OK, ok.status(), ok.body());
    long id = ok.json().path("procId").asLong();
    as(Role.READER).post("/api/procedures/" + id + "/abort", null).assertError(403, "forbidden");
    anonymous().post("/api/procedures/" + id + "/abort", null).assertError(401, "unauthenticated");
    as(Role.OPERATOR)
        .send(
            "POST",
            "/api/procedures/" + id + "/abort",
            new byte[0],
            Map.of("Content-Type", "text/plain"))
        .assertError(415, HttpErrors.UNSUPPORTED_MEDIA_TYPE);

    List<JsonNode> lines = new ArrayList<>();
    String text = Files.readString(node.auditLog());
    for (String line : text.split("\n")) {
      lines.add(Json.LENIENT.readTree(line));
    }
    for (String token : TestTokens.TOKENS.values()) {
      assertFalse(text.contains(token), "the audit log holds a token");
    }
    JsonNode submit =
        lines.stream()
            .filter(l -> l.path("target").asText().equals("procedure " + id + " CreateDatabase"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no audit line for the submission: " + text));
    assertEquals("op", submit.path("principal").asText(), submit.toString());
    assertEquals("POST /api/procedures", submit.path("action").asText(), submit.toString());
    assertEquals("200", submit.path("result").asText(), submit.toString());
    assertTrue(submit.path("remote").asText().startsWith("127.0.0.1:"), submit.toString());

    String abort = "POST /api/procedures/" + id + "/abort";
    List<JsonNode> refused =
        lines.stream().filter(l -> l.path("action").asText().equals(abort)).toList();
    assertEquals(3, refused.size(), () -> "one line per refused abort: " + refused);
    assertEquals("reader", refused.get(0).path("principal").asText());
    assertEquals("403 forbidden", refused.get(0).path("result").asText());
    assertTrue(refused.get(1).path("principal").isNull(), refused.get(1).toString());
    assertEquals("401 unauthenticated", refused.get(1).path("result").asText());
    assertEquals("op", refused.get(2).path("principal").asText());
    assertEquals("415 unsupported_media_type", refused.get(2).path("result").asText());
    assertTrue(
        lines.stream()
            .noneMatch(
                l ->
                    l.path("action").asText().startsWith("GET ")
                        && l.path("result").asText().startsWith("200")),
        "a read that was served is no audit line");
  }

  @Test
  void clientsDrippingHeadersStarveNobodyAndAreCutOff() throws Exception {
    ConfigNodeServer node = cluster.leader();
    List<Socket> drippers = new ArrayList<>();
    for (int i = 0; i < DRIPPERS; i++) {
      Socket s = SlowClients.connect("127.0.0.1", node.httpPort(), Duration.ofMillis(50));
      drippers.add(s);
      SlowClients.drip(s, 0);
    }
    long start = System.nanoTime();
    RawHttp.Reply ninth = as(Role.READER).get("/api/cluster");
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertEquals(HttpURLConnection.HTTP_OK, ninth.status(), ninth.body());
    assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0, "a ninth request waited " + took);

    int sent = 1;
    boolean anyOpen = true;
    while (anyOpen && System.nanoTime() - start < HEADER_TIMEOUT.multipliedBy(8).toNanos()) {
      anyOpen = false;
      for (Socket s : drippers) {
        if (!s.isClosed()) {
          if (!SlowClients.drip(s, sent) || SlowClients.closedByServer(s)) {
            s.close();
          } else {
            anyOpen = true;
          }
        }
      }
      sent++;
    }
    assertFalse(anyOpen, "every dripping connection was cut off");
  }
}
