package dev.baton.confignode.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /api/openapi.json} against the routes a running node serves: every endpoint of its
 * route table is documented, nothing else is, and every documented operation is answered by a route
 * (not the router's 404 for an unknown path or its 405 for a method the path lacks).
 */
@Timeout(120)
class OpenApiDocumentTest {
  /** What a path parameter is filled with when probing: an id no procedure has, a name. */
  private static final Map<String, String> PROBE_VALUES =
      Map.of("id", "987654321", "node", "probe");

  /** Operations the test knows the node serves (a sample, to catch an empty or broken table). */
  private static final List<String> KNOWN =
      List.of(
          "GET /metrics",
          "GET /api/openapi.json",
          "GET /api/cluster",
          "POST /api/procedures",
          "GET /api/procedures/{id}",
          "POST /api/procedures/{id}/abort",
          "GET /api/locks",
          "GET /api/overview",
          "GET /api/procedures/{id}/history",
          "POST /api/flows/{id}/nodes/{node}/resume",
          "DELETE /api/faults/hold");

  @RegisterExtension static final SimClusterExtension NODE = new SimClusterExtension(1, 0);

  private static JsonNode doc;

  @BeforeAll
  static void start() throws Exception {
    RawHttp.Reply r = http().get(OpenApiDocument.PATH);
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    doc = r.json();
  }

  private static RawHttp http() {
    return new RawHttp(SimCluster.http(NODE.cluster().leader()));
  }

  /** "METHOD /path/{param}" of every documented operation. */
  private static Set<String> documented() {
    Set<String> out = new TreeSet<>();
    for (Iterator<Map.Entry<String, JsonNode>> paths = doc.path("paths").fields();
        paths.hasNext(); ) {
      Map.Entry<String, JsonNode> path = paths.next();
      for (Iterator<String> methods = path.getValue().fieldNames(); methods.hasNext(); ) {
        out.add(methods.next().toUpperCase(Locale.ROOT) + " " + path.getKey());
      }
    }
    return out;
  }

  @Test
  void theDocumentIsOpenApi3WithAnOperationForEveryRoute() {
    assertTrue(doc.path("openapi").asText().startsWith("3."), doc.toString());
    assertFalse(doc.path("info").path("title").asText().isEmpty());
    Set<String> served = new TreeSet<>();
    for (Endpoint e : NODE.cluster().leader().adminServer().endpoints()) {
      served.add(e.method() + " " + e.path());
    }
    assertEquals(served, documented(), "documented operations differ from the routes served");
    assertTrue(documented().containsAll(KNOWN), documented().toString());
    Set<String> operationIds = new TreeSet<>();
    for (JsonNode item : doc.path("paths")) {
      for (JsonNode op : item) {
        assertFalse(op.path("summary").asText().isBlank(), op.toString());
        assertTrue(op.path("responses").has("200"), op.toString());
        assertTrue(operationIds.add(op.path("operationId").asText()), "operationId twice: " + op);
      }
    }
  }

  @Test
  void everyDocumentedOperationIsAnsweredByARoute() {
    List<String> unrouted = new ArrayList<>();
    for (String operation : documented()) {
      String[] methodAndPath = operation.split(" ", 2);
      String path = fill(methodAndPath[1]);
      if (path.equals(EventRoutes.PATH)) {
        // the stream never ends: a bad filter shows the route answers without opening it
        path += "?procId=none";
      }
      RawHttp.Reply r = http().send(methodAndPath[0], path, null);
      boolean routerRefused =
          r.status() == HttpURLConnection.HTTP_BAD_METHOD
              || (r.status() == HttpURLConnection.HTTP_NOT_FOUND
                  && r.body().contains("no such path"));
      if (routerRefused) {
        unrouted.add(operation + " → " + r.status() + " " + r.body());
      }
    }
    assertTrue(unrouted.isEmpty(), () -> String.join("\n", unrouted));
  }

  @Test
  void aPathOutsideTheDocumentIsNotServed() {
    RawHttp.Reply r = http().get("/api/procedures/1/why-not");
    assertEquals(HttpURLConnection.HTTP_NOT_FOUND, r.status(), r.body());
    assertEquals(HttpErrors.NOT_FOUND, r.json().path("error").asText());
    assertFalse(documented().contains("GET /api/procedures/{id}/why-not"));
    RawHttp.Reply wrongMethod = http().send("PUT", OpenApiDocument.PATH, null);
    assertEquals(HttpURLConnection.HTTP_BAD_METHOD, wrongMethod.status(), wrongMethod.body());
    assertNotEquals(-1, wrongMethod.body().indexOf("use GET"), wrongMethod.body());
  }

  /** {@code path} with each {@code {param}} replaced by a probe value. */
  private static String fill(String template) {
    StringBuilder out = new StringBuilder();
    for (String segment : template.substring(1).split("/")) {
      out.append('/');
      out.append(
          Endpoint.isParameter(segment)
              ? PROBE_VALUES.getOrDefault(segment.substring(1, segment.length() - 1), "x")
              : segment);
    }
    return out.toString();
  }
}
