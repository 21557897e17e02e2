package dev.baton.confignode.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.http.ErrorReply;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.http.JsonExchange;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad input gets a 4xx JSON error naming the problem, never a 500 or a stack trace. */
@Timeout(60)
class DataNodeBadInputTest {
  @TempDir static Path dir;

  private static DataNodeServer server;
  private static final HttpClient HTTP = DataNodeClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    server =
        new DataNodeServer(
                DataNodeConfig.of(1, dir).withGuard(DataNodeGuard.PLAIN.withFaults(true)))
            .start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static HttpResponse<String> send(String method, String path, byte[] body)
      throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://" + server.address() + path))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body))
            .header("Content-Type", JsonExchange.CONTENT_TYPE)
            .build();
    return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    return send("POST", path, body.getBytes(StandardCharsets.UTF_8));
  }

  /** Asserts a JSON error with the status and code, and returns its message. */
  private static String assertError(HttpResponse<String> response, int status, String code)
      throws Exception {
    assertEquals(status, response.statusCode(), response.body());
    assertEquals(
        JsonExchange.CONTENT_TYPE, response.headers().firstValue("Content-Type").orElse(""));
    ErrorReply error = Json.STRICT.readValue(response.body(), ErrorReply.class);
    assertEquals(code, error.error(), response.body());
    assertFalse(error.message().isBlank());
    assertFalse(response.body().contains("\tat "), "no stack trace: " + response.body());
    assertFalse(response.body().contains("dev.baton"), "no class names: " + response.body());
    return error.message();
  }

  private static void assertNothingApplied() throws Exception {
    DataNodeState state = new DataNodeClient(server.address()).state();
    assertTrue(state.ledger().isEmpty(), "bad input must not apply: " + state.ledger());
    assertTrue(state.regions().isEmpty());
    assertEquals(0, state.highestTerm(), "bad input must not raise the term");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          missing regionId      | {"term":1,"procId":1,"step":"S","database":"d","kind":"DATA"}                       | regionId
          missing term          | {"procId":1,"step":"S","regionId":1,"database":"d","kind":"DATA"}                   | term
          string for a number   | {"term":"1","procId":1,"step":"S","regionId":1,"database":"d","kind":"DATA"}        | term
          fraction for a number | {"term":1,"procId":1.5,"step":"S","regionId":1,"database":"d","kind":"DATA"}        | procId
          null for a number     | {"term":1,"procId":1,"step":"S","regionId":null,"database":"d","kind":"DATA"}       | regionId
          number for a string   | {"term":1,"procId":1,"step":7,"regionId":1,"database":"d","kind":"DATA"}            | step
          object for a string   | {"term":1,"procId":1,"step":"S","regionId":1,"database":{},"kind":"DATA"}           | database
          unknown kind          | {"term":1,"procId":1,"step":"S","regionId":1,"database":"d","kind":"BLOB"}          | kind
          unknown field         | {"term":1,"procId":1,"step":"S","regionId":1,"database":"d","kind":"DATA","x":1}    | x
          negative term         | {"term":-1,"procId":1,"step":"S","regionId":1,"database":"d","kind":"DATA"}         | term
          blank step            | {"term":1,"procId":1,"step":" ","regionId":1,"database":"d","kind":"DATA"}          | step
          term out of range     | {"term":99999999999999999999,"procId":1,"step":"S","regionId":1,"database":"d","kind":"DATA"} | term
          """)
  void invalidCommandIs400NamingTheField(String name, String body, String field) throws Exception {
    String message =
        assertError(post("/regions/create", body), 400, DataNodeErrors.INVALID_REQUEST);
    assertTrue(message.contains(field), name + ": " + message);
    assertNothingApplied();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          {"term":1,
          not json
          {"term":1,}
          """)
  void malformedJsonIs400(String body) throws Exception {
    assertError(post("/ping", body), 400, DataNodeErrors.MALFORMED_JSON);
    assertNothingApplied();
  }

  @Test
  void bodiesThatAreNotObjectsAre400() throws Exception {
    for (String body : new String[] {"", "null", "[1]", "\"x\"", "3"}) {
      assertError(post("/regions/delete", body), 400, DataNodeErrors.INVALID_REQUEST);
    }
    assertNothingApplied();
  }

  @Test
  void trailingContentIs400() throws Exception {
    assertError(
        post("/ping", "{\"term\":1,\"procId\":1,\"step\":\"S\"} {}"),
        400,
        DataNodeErrors.MALFORMED_JSON);
    assertNothingApplied();
  }

  @Test
  void unknownPathIs404() throws Exception {
    String message = assertError(post("/regions/explode", "{}"), 404, DataNodeErrors.NOT_FOUND);
    assertTrue(message.contains("/regions/create"), message);
    assertError(send("GET", "/", null), 404, DataNodeErrors.NOT_FOUND);
    String fault = assertError(post("/faults/explode", "{}"), 404, DataNodeErrors.NOT_FOUND);
    assertTrue(fault.contains("/faults/reset"), "the fault routes are on here: " + fault);
  }

  @Test
  void wrongMethodIs405WithAllow() throws Exception {
    HttpResponse<String> response = send("GET", "/regions/create", null);
    assertError(response, 405, DataNodeErrors.METHOD_NOT_ALLOWED);
    assertEquals("POST", response.headers().firstValue("Allow").orElse(""));
    assertError(send("DELETE", "/state", null), 405, DataNodeErrors.METHOD_NOT_ALLOWED);
  }

  @Test
  void oversizedBodyIs413() throws Exception {
    byte[] body = new byte[DataNodeServer.MAX_BODY_BYTES + 1];
    Arrays.fill(body, (byte) ' ');
    String message =
        assertError(send("POST", "/ping", body), 413, DataNodeErrors.PAYLOAD_TOO_LARGE);
    assertTrue(message.contains(String.valueOf(DataNodeServer.MAX_BODY_BYTES)), message);
    // a body at the limit is read (and here refused as empty of content, not as too large)
    byte[] atLimit = new byte[DataNodeServer.MAX_BODY_BYTES];
    Arrays.fill(atLimit, (byte) ' ');
    assertEquals(400, send("POST", "/ping", atLimit).statusCode());
    assertNothingApplied();
  }

  @Test
  void badFaultSettingsAre400() throws Exception {
    assertError(post("/faults", "{\"failNext\":-1}"), 400, DataNodeErrors.INVALID_REQUEST);
    assertError(post("/faults", "{\"latencyMs\":\"slow\"}"), 400, DataNodeErrors.INVALID_REQUEST);
    assertError(post("/faults", "{\"explode\":true}"), 400, DataNodeErrors.INVALID_REQUEST);
    assertEquals(0, new DataNodeClient(server.address()).state().faults().failNext());
  }
}
