package dev.baton.confignode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.http.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * A client of ConfigNode admin APIs: tries the given nodes in turn until one answers. Errors carry
 * the node's JSON error message.
 */
public final class NodeApiClient {
  /** Per-request timeout; the node itself waits up to 15 s for the cluster. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);

  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  private final List<String> nodes;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();

  /**
   * @param nodes host:port of the nodes' admin APIs
   */
  public NodeApiClient(List<String> nodes) {
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("no ConfigNode address given");
    }
    this.nodes = List.copyOf(nodes);
  }

  /** A failed call: the HTTP status (0 if no node answered) and the message. */
  public static final class ApiException extends IOException {
    private final int status;

    ApiException(int status, String message) {
      super(message);
      this.status = status;
    }

    public int status() {
      return status;
    }
  }

  public JsonNode cluster(String node) throws IOException, InterruptedException {
    return call(node, "GET", "/api/cluster", null);
  }

  public JsonNode get(String path) throws IOException, InterruptedException {
    return anyNode("GET", path, null);
  }

  public long submit(String type, JsonNode args, Long nonceGroup, Long nonce)
      throws IOException, InterruptedException {
    ObjectNode body = Json.LENIENT.createObjectNode();
    body.put("type", type);
    if (args != null) {
      body.set("args", args);
    }
    if (nonce != null) {
      ObjectNode n = body.putObject("nonce");
      n.put("group", nonceGroup);
      n.put("nonce", nonce);
    }
    return anyNode("POST", "/api/procedures", body).get("procId").asLong();
  }

  public JsonNode post(String path, JsonNode body) throws IOException, InterruptedException {
    return anyNode("POST", path, body);
  }

  private JsonNode anyNode(String method, String path, JsonNode body)
      throws IOException, InterruptedException {
    ApiException last = null;
    for (String node : nodes) {
      try {
        return call(node, method, path, body);
      } catch (ApiException e) {
        if (e.status() != 0 && e.status() < 500) {
          throw e;
        }
        last = e;
      }
    }
    throw last;
  }

  JsonNode call(String node, String method, String path, JsonNode body)
      throws IOException, InterruptedException {
    HttpRequest.Builder req =
        HttpRequest.newBuilder(URI.create("http://" + node + path)).timeout(REQUEST_TIMEOUT);
    if (body == null) {
      req.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      req.header("Content-Type", "application/json")
          .method(
              method, HttpRequest.BodyPublishers.ofByteArray(Json.LENIENT.writeValueAsBytes(body)));
    }
    HttpResponse<byte[]> resp;
    try {
      resp = http.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new ApiException(0, "ConfigNode " + node + " unreachable: " + e.getMessage());
    }
    JsonNode json;
    try {
      json = Json.LENIENT.readTree(resp.body());
    } catch (IOException e) {
      throw new ApiException(resp.statusCode(), "ConfigNode " + node + " sent no JSON");
    }
    if (resp.statusCode() != 200) {
      String msg = json != null && json.has("message") ? json.get("message").asText() : "";
      throw new ApiException(
          resp.statusCode(), "ConfigNode " + node + ": HTTP " + resp.statusCode() + ": " + msg);
    }
    return json;
  }
}
