package dev.baton.confignode.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.auth.Role;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.JsonExchange;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.TestTokens;
import java.net.HttpURLConnection;
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

/**
 * Every kind of bad input to the admin API gets a 4xx JSON {@code {error, message}} that says what
 * was wrong, never a 500 or a stack trace, and changes nothing, with a valid token (the node
 * requires tokens). One single-node ConfigNode serves the whole class.
 */
@Timeout(120)
class AdminApiBadInputTest {
  @TempDir static Path dir;

  private static SimCluster cluster;
  private static RawHttp http;

  @BeforeAll
  static void startNode() throws Exception {
    String admin = TestTokens.TOKENS.get(Role.ADMIN);
    cluster = SimCluster.startWithTokens(dir, 1, 0);
    http = new RawHttp(SimCluster.http(cluster.leader())).withToken(admin);
  }

  @AfterAll
  static void stopNode() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static int procedureCount() throws Exception {
    RawHttp.Reply list = http.get("/api/procedures");
    assertEquals(HttpURLConnection.HTTP_OK, list.status(), list.body());
    return list.json().size();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          truncated JSON          | {"type":"Noop",                                       | malformed_json  | not valid JSON
          not JSON at all         | hello                                                 | malformed_json  | not valid JSON
          content after object    | {"type":"Noop"} {}                                    | malformed_json  | content after the JSON object
          JSON null               | null                                                  | invalid_request | expected a JSON object
          an array                | []                                                    | invalid_request | expected a JSON object
          a string                | "Noop"                                                | invalid_request | expected a JSON object
          unknown type            | {"type":"Explode"}                                    | invalid_request | unknown procedure type 'Explode'
          missing type            | {"args":{}}                                           | invalid_request | missing required field 'type'
          type not a string       | {"type":5}                                            | invalid_request | field 'type' must be a string
          unknown body field      | {"type":"Noop","tpye":"Noop"}                         | invalid_request | unknown field 'tpye'
          args not an object      | {"type":"Noop","args":[1]}                            | invalid_request | args must be a JSON object
          args a string           | {"type":"Sleep","args":"millis=5"}                    | invalid_request | args must be a JSON object
          unknown argument        | {"type":"Sleep","args":{"millis":1,"seconds":2}}      | invalid_request | unknown argument 'seconds'
          argument of Noop        | {"type":"Noop","args":{"x":1}}                        | invalid_request | unknown argument 'x'
          missing argument        | {"type":"Sleep","args":{}}                            | invalid_request | argument 'millis' is required
          missing args            | {"type":"Sleep"}                                      | invalid_request | argument 'millis' is required
          null argument           | {"type":"RemoveDataNode","args":{"dataNodeId":null}}  | invalid_request | argument 'dataNodeId' is required
          string for integer      | {"type":"Sleep","args":{"millis":"10"}}               | invalid_request | argument 'millis' must be an integer
          fraction for integer    | {"type":"Sleep","args":{"millis":1.5}}                | invalid_request | argument 'millis' must be an integer
          integer too large       | {"type":"Sleep","args":{"millis":10000000000}}        | invalid_request | argument 'millis' must be an integer
          boolean for integer     | {"type":"MigrateRegion","args":{"regionId":true,"from":1,"to":2}} | invalid_request | argument 'regionId' must be an integer
          number for string       | {"type":"CreateDatabase","args":{"name":7}}           | invalid_request | argument 'name' must be a string
          negative sleep          | {"type":"Sleep","args":{"millis":-1}}                 | invalid_request | millis must be >= 0
          bad database name       | {"type":"CreateDatabase","args":{"name":"a b"}}       | invalid_request | database name may hold
          empty database name     | {"type":"DeleteDatabase","args":{"name":""}}          | invalid_request | database name must be 1..64
          no schema regions       | {"type":"CreateDatabase","args":{"name":"d","schemaRegions":0}} | invalid_request | schemaRegions must be within 1..64
          zero replication        | {"type":"CreateDatabase","args":{"name":"d","replication":0}}   | invalid_request | replication must be within
          bad address             | {"type":"AddDataNode","args":{"address":"nowhere"}}   | invalid_request | is not HOST:PORT
          address with a path     | {"type":"AddDataNode","args":{"address":"h/x:80"}}    | invalid_request | is not HOST:PORT
          address with user info  | {"type":"AddDataNode","args":{"address":"a@b:1"}}     | invalid_request | is not HOST:PORT
          address with a query    | {"type":"AddDataNode","args":{"address":"h?x=1:80"}}  | invalid_request | is not HOST:PORT
          address port zero       | {"type":"AddDataNode","args":{"address":"h:0"}}       | invalid_request | the port must be 1-65535
          address port too large  | {"type":"AddDataNode","args":{"address":"h:65536"}}   | invalid_request | the port must be 1-65535
          address with a space    | {"type":"AddDataNode","args":{"address":"h x:80"}}    | invalid_request | is not HOST:PORT
          sleep past the cap      | {"type":"Sleep","args":{"millis":3600001}}            | invalid_request | max-sleep-ms 3600000
          reserved nonce group    | {"type":"Noop","nonce":{"group":1,"nonce":2}}         | invalid_request | nonce group 1 is reserved
          migrate onto itself     | {"type":"MigrateRegion","args":{"regionId":1,"from":2,"to":2}} | invalid_request | source and target DataNode are both 2
          nonce not an object     | {"type":"Noop","nonce":5}                             | invalid_request | field 'nonce' must be a JSON object
          nonce group a string    | {"type":"Noop","nonce":{"group":"a","nonce":1}}       | invalid_request | field 'nonce.group' must be an integer
          nonce fraction          | {"type":"Noop","nonce":{"group":1,"nonce":2.5}}       | invalid_request | field 'nonce.nonce' must be an integer
          nonce missing a field   | {"type":"Noop","nonce":{"group":1}}                   | invalid_request | nonce.nonce
          nonce unknown field     | {"type":"Noop","nonce":{"group":1,"nonce":2,"x":3}}   | invalid_request | unknown field 'x'
          """)
  void badSubmissionIs400AndCreatesNothing(String name, String body, String error, String says)
      throws Exception {
    int before = procedureCount();
    RawHttp.Reply r = http.post("/api/procedures", body);
    String message = r.assertError(HttpURLConnection.HTTP_BAD_REQUEST, error);
    assertTrue(message.contains(says), () -> name + ": " + message);
    assertEquals(before, procedureCount(), "a rejected submission must create no procedure");
  }

  @Test
  void emptyBodyIs400() throws Exception {
    String message =
        http.post("/api/procedures", "")
            .assertError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST);
    assertTrue(message.contains("empty"), message);
  }

  @Test
  void invalidUtf8Is400() throws Exception {
    byte[] body = {'{', '"', 't', 'y', 'p', 'e', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
    http.send("POST", "/api/procedures", body)
        .assertError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.MALFORMED_JSON);
  }

  @Test
  void deeplyNestedArgsAre400() throws Exception {
    int depth = 5_000;
    String body = "{\"type\":\"Noop\",\"args\":" + "[".repeat(depth) + "]".repeat(depth) + "}";
    String message =
        http.post("/api/procedures", body)
            .assertError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.MALFORMED_JSON);
    assertTrue(message.contains("nesting depth"), message);
  }

  @Test
  void bodyOverTheLimitIs413AndOneAtTheLimitIsAccepted() throws Exception {
    String json = "{\"type\":\"Noop\",\"nonce\":{\"group\":5,\"nonce\":1}}";
    byte[] atLimit = padded(json, ProcedureRoutes.MAX_BODY_BYTES);
    RawHttp.Reply ok = http.send("POST", "/api/procedures", atLimit);
    assertEquals(HttpURLConnection.HTTP_OK, ok.status(), ok.body());
    assertTrue(ok.json().path("procId").asLong() > 0, ok.body());

    int before = procedureCount();
    String message =
        http.send("POST", "/api/procedures", padded(json, ProcedureRoutes.MAX_BODY_BYTES + 1))
            .assertError(JsonExchange.HTTP_PAYLOAD_TOO_LARGE, HttpErrors.PAYLOAD_TOO_LARGE);
    assertTrue(message.contains(Integer.toString(ProcedureRoutes.MAX_BODY_BYTES)), message);
    http.send("POST", "/api/procedures", padded(json, 1 << 20))
        .assertError(JsonExchange.HTTP_PAYLOAD_TOO_LARGE, HttpErrors.PAYLOAD_TOO_LARGE);
    assertEquals(before, procedureCount());
  }

  @Test
  void chunkedBodyOverTheLimitIs413AndOneAtTheLimitIsAccepted() throws Exception {
    String json = "{\"type\":\"Noop\",\"nonce\":{\"group\":6,\"nonce\":1}}";
    RawHttp.Reply ok =
        http.sendChunked("POST", "/api/procedures", padded(json, ProcedureRoutes.MAX_BODY_BYTES));
    assertEquals(HttpURLConnection.HTTP_OK, ok.status(), ok.body());
    assertTrue(ok.json().path("procId").asLong() > 0, ok.body());

    int before = procedureCount();
    http.sendChunked("POST", "/api/procedures", padded(json, ProcedureRoutes.MAX_BODY_BYTES + 1))
        .assertError(JsonExchange.HTTP_PAYLOAD_TOO_LARGE, HttpErrors.PAYLOAD_TOO_LARGE);
    assertEquals(before, procedureCount());
  }

  /** {@code json} followed by spaces up to exactly {@code size} bytes: valid JSON of that size. */
  private static byte[] padded(String json, int size) {
    byte[] out = new byte[size];
    Arrays.fill(out, (byte) ' ');
    byte[] j = json.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(j, 0, out, 0, j.length);
    return out;
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          GET  | /api/procedures/99999999           | 404 | not_found       | no procedure 99999999
          GET  | /api/procedures/abc                | 400 | invalid_request | positive integer, got 'abc'
          GET  | /api/procedures/0                  | 400 | invalid_request | positive integer
          GET  | /api/procedures/-5                 | 400 | invalid_request | positive integer
          GET  | /api/procedures/1.5                | 400 | invalid_request | positive integer
          GET  | /api/procedures/99999999999999999999 | 400 | invalid_request | positive integer
          POST | /api/procedures/abc/abort          | 400 | invalid_request | positive integer
          POST | /api/procedures/99999999/abort     | 404 | not_found       | no procedure 99999999
          GET  | /api/procedures?state=DONE         | 400 | invalid_request | unknown state 'DONE'
          GET  | /api/procedures?state=success      | 400 | invalid_request | unknown state 'success'
          GET  | /api/procedures?state=             | 400 | invalid_request | unknown state ''
          DELETE | /api/procedures                  | 405 | method_not_allowed | method DELETE not allowed
          PATCH | /api/procedures                   | 405 | method_not_allowed | method PATCH not allowed
          PUT  | /api/procedures/1                  | 405 | method_not_allowed | use GET
          GET  | /api/procedures/1/abort            | 405 | method_not_allowed | use POST
          POST | /api/cluster                       | 405 | method_not_allowed | use GET
          DELETE | /api/metadata                    | 405 | method_not_allowed | use GET
          POST | /metrics                           | 405 | method_not_allowed | use GET
          GET  | /                                  | 404 | not_found       | no such path: /
          GET  | /api                               | 404 | not_found       | no such path: /api
          GET  | /api/nope                          | 404 | not_found       | no such path: /api/nope
          POST | /api/nope                          | 404 | not_found       | no such path: /api/nope
          GET  | /api/cluster/extra                 | 404 | not_found       | no such path
          GET  | /api/procedures/1/resume           | 404 | not_found       | no such path
          GET  | /api/procedures/1/abort/now        | 404 | not_found       | no such path
          GET  | /metrics/extra                     | 404 | not_found       | no such path
          GET  | /api/faults/hold                   | 404 | not_found       | start it with --faults
          POST | /api/faults/hold                   | 404 | not_found       | fault routes are off
          DELETE | /api/faults/hold                 | 404 | not_found       | fault routes are off
          """)
  void badPathMethodOrIdIs4xx(String method, String path, int status, String error, String says)
      throws Exception {
    String message = http.send(method, path, null).assertError(status, error);
    assertTrue(message.contains(says), () -> method + " " + path + ": " + message);
  }

  @Test
  void theNodeStillServesAfterBadInput() throws Exception {
    long id = cluster.submit("Noop");
    assertEquals(id, cluster.awaitSuccess(id).procId());
    RawHttp.Reply get = http.get("/api/procedures/" + id);
    assertEquals(HttpURLConnection.HTTP_OK, get.status(), get.body());
    assertEquals("SUCCESS", get.json().path("state").asText(), get.body());
  }
}
