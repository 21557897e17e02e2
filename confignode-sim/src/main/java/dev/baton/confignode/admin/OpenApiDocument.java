package dev.baton.confignode.admin;

import dev.baton.confignode.http.JsonExchange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code GET /api/openapi.json}: an OpenAPI 3 document of the admin API made from the {@link
 * RouteTable}'s endpoints, so every served endpoint is documented and nothing else is. Errors are
 * the JSON {@code {error, message}} of every route; with tokens on, every request needs a bearer
 * token (reader for GET, operator or admin for the rest).
 */
final class OpenApiDocument {
  static final String PATH = "/api/openapi.json";
  static final String VERSION = "3.0.3";

  /** The admin API's own version: changes when an endpoint changes incompatibly. */
  static final String API_VERSION = "1";

  private static final String ERROR_SCHEMA = "#/components/schemas/Error";
  private static final String BEARER = "bearer";

  private OpenApiDocument() {}

  static Map<String, Object> of(List<Endpoint> endpoints) {
    Map<String, Object> paths = new LinkedHashMap<>();
    for (Endpoint e : endpoints) {
      @SuppressWarnings("unchecked")
      Map<String, Object> item =
          (Map<String, Object>) paths.computeIfAbsent(e.path(), p -> new LinkedHashMap<>());
      item.put(e.method().toLowerCase(Locale.ROOT), operation(e));
    }
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("openapi", VERSION);
    doc.put(
        "info",
        Map.of(
            "title",
            "Baton ConfigNode admin API",
            "version",
            API_VERSION,
            "description",
            "Procedures, workflows, locks, cluster state and metrics of one ConfigNode."
                + " Any node answers; writes go through the replicated log."));
    doc.put("paths", paths);
    doc.put("components", components());
    doc.put("security", List.of(Map.of(BEARER, List.of())));
    return doc;
  }

  private static Map<String, Object> operation(Endpoint e) {
    Map<String, Object> op = new LinkedHashMap<>();
    op.put("summary", e.summary());
    op.put("operationId", operationId(e));
    List<Object> parameters = new ArrayList<>();
    for (String segment : e.segments()) {
      if (Endpoint.isParameter(segment)) {
        String name = segment.substring(1, segment.length() - 1);
        parameters.add(
            Map.of(
                "name",
                name,
                "in",
                "path",
                "required",
                true,
                "schema",
                Map.of("type", name.equals("id") ? "integer" : "string")));
      }
    }
    for (String q : e.query()) {
      String[] nameAndWhat = q.split(": ", 2);
      parameters.add(
          Map.of(
              "name",
              nameAndWhat[0],
              "in",
              "query",
              "required",
              false,
              "description",
              nameAndWhat.length > 1 ? nameAndWhat[1] : "",
              "schema",
              Map.of("type", "string")));
    }
    if (!parameters.isEmpty()) {
      op.put("parameters", parameters);
    }
    if (e.jsonBody()) {
      op.put(
          "requestBody",
          Map.of(
              "required",
              false,
              "content",
              Map.of(JsonExchange.CONTENT_TYPE, Map.of("schema", Map.of("type", "object")))));
    }
    Map<String, Object> responses = new LinkedHashMap<>();
    responses.put(
        "200",
        Map.of(
            "description",
            "the answer",
            "content",
            Map.of(e.contentType(), Map.of("schema", Map.of("type", answerType(e))))));
    responses.put("4XX", errorResponse("bad input, unknown id or path, refused"));
    responses.put("503", errorResponse("the cluster cannot answer now; retry"));
    op.put("responses", responses);
    return op;
  }

  private static String answerType(Endpoint e) {
    return e.contentType().equals(JsonExchange.CONTENT_TYPE) ? "object" : "string";
  }

  /** {@code GET /api/procedures/{id}/abort} is {@code postApiProceduresIdAbort}. */
  static String operationId(Endpoint e) {
    StringBuilder id = new StringBuilder(e.method().toLowerCase(Locale.ROOT));
    for (String segment : e.path().split("[/{}.]")) {
      if (!segment.isEmpty()) {
        id.append(Character.toUpperCase(segment.charAt(0))).append(segment.substring(1));
      }
    }
    return id.toString();
  }

  private static Map<String, Object> errorResponse(String description) {
    return Map.of(
        "description",
        description,
        "content",
        Map.of(JsonExchange.CONTENT_TYPE, Map.of("schema", Map.of("$ref", ERROR_SCHEMA))));
  }

  private static Map<String, Object> components() {
    Map<String, Object> error =
        Map.of(
            "type",
            "object",
            "required",
            List.of("error", "message"),
            "properties",
            Map.of(
                "error", Map.of("type", "string", "description", "a stable code"),
                "message", Map.of("type", "string", "description", "what went wrong, for people")));
    return Map.of(
        "schemas",
        Map.of("Error", error),
        "securitySchemes",
        Map.of(BEARER, Map.of("type", "http", "scheme", BEARER)));
  }
}
