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

  /** How long reads keep retrying while no node can serve them. */
  static final Duration READ_PATIENCE = Duration.ofSeconds(60);

  static final Duration READ_RETRY = Duration.ofMillis(200);

  private static final int HTTP_SERVER_ERROR = 500;

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

    /** No node answered, or it could not serve the request now (503): worth asking again. */
    public boolean retryable() {
      return status == 0 || status >= HTTP_SERVER_ERROR;
    }
  }

  public JsonNode cluster(String node) throws IOException, InterruptedException {
    return call(node, "GET", "/api/cluster", null);
  }

  /**
   * A read from any node; retried (reads are safe to repeat) while no node can serve it, up to
   * {@link #READ_PATIENCE}, e.g. during an election.
   */
  public JsonNode get(String path) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + READ_PATIENCE.toNanos();
    while (true) {
      try {
        return anyNode("GET", path, null);
      } catch (ApiException e) {
        if (!e.retryable() || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(READ_RETRY.toMillis());
      }
    }
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
        if (!e.retryable()) {
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
