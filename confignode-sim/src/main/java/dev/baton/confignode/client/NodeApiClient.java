package dev.baton.confignode.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.auth.AccessControl;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.http.Paging;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.procedure.util.Poll;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * A client of ConfigNode admin APIs: tries the given nodes in turn until one answers. Errors carry
 * the node's JSON error message. {@link #withToken} sends a bearer token with every request, {@link
 * #withTls} speaks HTTPS.
 */
public final class NodeApiClient {
  private static final int HTTP_SERVER_ERROR = 500;

  private static final int HTTP_OK = 200;

  private static final String JSON = "application/json";

  private static final String EVENT_STREAM = "text/event-stream";

  private static final String LAST_EVENT_ID = "Last-Event-ID";

  /**
   * The answer header in which a ConfigNode that is not the leader names the leader's admin API
   * address (host:port), when it knows it.
   */
  public static final String LEADER_HEADER = "Baton-Leader";

  private final List<String> nodes;

  /**
   * Where {@link #anyNode} starts: the leader a node's answer named ({@link #LEADER_HEADER}) if
   * this client knows it, else the node that answered last, so a node that cannot serve (cut off
   * from the leader, restarting) costs one request, not one per call, and a client that had to fall
   * back on a follower comes back to the leader (a submission there saves a hop, a read its read
   * index round trip).
   */
  private volatile int preferred;

  private final Duration patience;
  private final HttpClient http;
  private final String scheme;

  /** The Authorization header sent with every request, if any. */
  private final Optional<String> authorization;

  /** The TLS trust of {@code https} calls, if any. */
  private final Optional<SSLContext> tls;

  /**
   * Where the JSON calls go when set ({@link #withKeepAliveConnections}): blocking exchanges on the
   * calling thread instead of the JDK's {@code HttpClient}.
   */
  private final Optional<KeepAliveConnections> blocking;

  /**
   * @param nodes host:port of the nodes' admin APIs
   */
  public NodeApiClient(List<String> nodes) {
    this(nodes, ConfigNodeWaits.API_READ_PATIENCE);
  }

  /**
   * @param nodes host:port of the nodes' admin APIs
   * @param patience how long {@link #get} and {@link #retrying} keep asking while no node can serve
   */
  public NodeApiClient(List<String> nodes, Duration patience) {
    this(
        nodes,
        patience,
        newHttpClient(Optional.empty()),
        "http",
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  private NodeApiClient(
      List<String> nodes,
      Duration patience,
      HttpClient http,
      String scheme,
      Optional<String> authorization,
      Optional<SSLContext> tls,
      Optional<KeepAliveConnections> blocking) {
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("no ConfigNode address given");
    }
    this.nodes = List.copyOf(nodes);
    this.patience = patience;
    this.http = http;
    this.scheme = scheme;
    this.authorization = authorization;
    this.tls = tls;
    this.blocking = blocking;
  }

  /** HTTP/1.1: the admin API's server speaks nothing else, so an h2c upgrade offer is wasted. */
  private static HttpClient newHttpClient(Optional<SSLContext> tls) {
    HttpClient.Builder b =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(ConfigNodeWaits.API_CONNECT_TIMEOUT);
    tls.ifPresent(b::sslContext);
    return b.build();
  }

  /** This client sending {@code Authorization: Bearer TOKEN} with every request. */
  public NodeApiClient withToken(String token) {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("a bearer token must not be empty");
    }
    return withAuthorization(Optional.of(AccessControl.BEARER + token));
  }

  /**
   * This client sending {@code header} as its Authorization header (or none), on the same
   * connections: a node forwarding a caller's request sends the caller's credentials.
   */
  public NodeApiClient withAuthorization(Optional<String> header) {
    return new NodeApiClient(nodes, patience, http, scheme, header, tls, blocking);
  }

  /** This client speaking HTTPS, trusting the certificates {@code trust} trusts. */
  public NodeApiClient withTls(SSLContext trust) {
    return new NodeApiClient(
        nodes,
        patience,
        newHttpClient(Optional.of(trust)),
        "https",
        authorization,
        Optional.of(trust),
        blocking.map(
            b ->
                new KeepAliveConnections(Optional.of(trust), ConfigNodeWaits.API_CONNECT_TIMEOUT)));
  }

  /**
   * This client making its JSON calls (submissions, reads, long polls) as blocking exchanges on the
   * calling thread, each on a kept-alive connection of its own ({@link KeepAliveConnections});
   * metrics and event streams still go through the JDK's {@code HttpClient}. For a caller with a
   * thread per request in flight, such as the bench's clients: the JDK's client hands each request
   * and answer between threads, which cost a closed loop about as much CPU as the node's handling.
   */
  public NodeApiClient withKeepAliveConnections() {
    return new NodeApiClient(
        nodes,
        patience,
        http,
        scheme,
        authorization,
        tls,
        Optional.of(new KeepAliveConnections(tls, ConfigNodeWaits.API_CONNECT_TIMEOUT)));
  }

  /**
   * Connections this client's kept-alive exchanges opened so far ({@link
   * #withKeepAliveConnections}; 0 without): how many connects and TLS handshakes a phase of calls
   * paid for.
   */
  public long connectionsOpened() {
    return blocking.map(KeepAliveConnections::opened).orElse(0L);
  }

  /**
   * A failed call: the HTTP status (0 if no node answered), the node's error code (empty if none)
   * and the message.
   */
  public static final class ApiException extends IOException {
    private final int status;
    private final String error;

    ApiException(int status, String message) {
      this(status, "", message);
    }

    ApiException(int status, String error, String message) {
      super(message);
      this.status = status;
      this.error = error;
    }

    public int status() {
      return status;
    }

    /** The node's error code ({@code not_found}, {@code invalid_request}, ...), or empty. */
    public String error() {
      return error;
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
   * {@link ConfigNodeWaits#API_READ_PATIENCE}, e.g. during an election.
   */
  public JsonNode get(String path) throws IOException, InterruptedException {
    return retrying(() -> anyNode("GET", path, null));
  }

  /**
   * Every procedure that matches {@code filter} (query parameters such as {@code state=RUNNABLE},
   * or empty), read page by page in id order ({@link Paging}); each page is a read as in {@link
   * #get}.
   */
  public ArrayNode listProcedures(String filter) throws IOException, InterruptedException {
    return listAll("/api/procedures", filter, "procId");
  }

  /**
   * Every entry of the audit trail of operator actions that matches {@code filter} (query
   * parameters such as {@code principal=op}, or empty), oldest first, read page by page as {@link
   * #listProcedures}.
   */
  public ArrayNode audit(String filter) throws IOException, InterruptedException {
    return listAll("/api/audit", filter, "index");
  }

  /** Every item of the paged list at {@code path}, each page after the last {@code key} read. */
  private ArrayNode listAll(String path, String filter, String key)
      throws IOException, InterruptedException {
    ArrayNode all = Json.LENIENT.createArrayNode();
    long after = 0;
    while (true) {
      String query =
          (filter.isEmpty() ? "" : filter + "&") + "limit=" + Paging.MAX_PAGE + "&after=" + after;
      JsonNode page = get(path + "?" + query);
      all.addAll((ArrayNode) page);
      if (page.size() < Paging.MAX_PAGE) {
        return all;
      }
      after = page.get(page.size() - 1).get(key).asLong();
    }
  }

  /** A call to the cluster. */
  @FunctionalInterface
  public interface Call<T> {
    T call() throws IOException, InterruptedException;
  }

  /**
   * The result of {@code call}, asked again while it fails with a retryable error, up to this
   * client's patience (for calls safe to repeat: reads, submissions with a nonce).
   */
  public <T> T retrying(Call<T> call) throws IOException, InterruptedException {
    return Poll.every(ConfigNodeWaits.API_READ_RETRY)
        .within(patience)
        .notYetIf(ApiException.class, ApiException::retryable)
        .retry(call::call);
  }

  public long submit(String type, JsonNode args, Long nonceGroup, Long nonce)
      throws IOException, InterruptedException {
    return anyNode("POST", "/api/procedures", submission(type, args, nonceGroup, nonce))
        .get("procId")
        .asLong();
  }

  /**
   * Submits a procedure and waits for it in the same request ({@code POST
   * /api/procedures?waitFor=finished}): the procedure once it finished, or as it is after {@code
   * timeout} ({@code finished} false). Past the longest wait one request may ask for, it waits on
   * with {@link #awaitFinished}. A retried submission ({@link #retrying}) with the same nonce is
   * the same procedure.
   */
  public JsonNode submitAndAwait(
      String type, JsonNode args, Long nonceGroup, Long nonce, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Duration poll = oneWait(timeout);
    JsonNode view =
        anyNode(
            "POST",
            "/api/procedures?waitFor=finished&timeout=" + poll.toMillis() + "ms",
            submission(type, args, nonceGroup, nonce),
            poll.plus(ConfigNodeWaits.API_REQUEST_TIMEOUT));
    long left = deadline - System.nanoTime();
    if (view.path("finished").asBoolean() || left <= 0) {
      return view;
    }
    return awaitFinished(view.get("procId").asLong(), Duration.ofNanos(left));
  }

  private static ObjectNode submission(String type, JsonNode args, Long nonceGroup, Long nonce) {
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
    return body;
  }

  /** The wait one long poll asks for: what is left, at most the longest a node accepts. */
  private static Duration oneWait(Duration left) {
    return left.compareTo(ConfigNodeWaits.PROCEDURE_WAIT_MAX) > 0
        ? ConfigNodeWaits.PROCEDURE_WAIT_MAX
        : left;
  }

  /**
   * The procedure once it finished, or as it is after {@code timeout} ({@code finished} false):
   * long polls {@code GET /api/procedures/ID?waitFor=finished} on any node, each at most {@link
   * ConfigNodeWaits#PROCEDURE_WAIT_MAX}, asked again (after a pause) while no node can serve it.
   */
  public JsonNode awaitFinished(long procId, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
      Duration poll = oneWait(left);
      String path =
          "/api/procedures/" + procId + "?waitFor=finished&timeout=" + poll.toMillis() + "ms";
      JsonNode view =
          retrying(
              () -> anyNode("GET", path, null, poll.plus(ConfigNodeWaits.API_REQUEST_TIMEOUT)));
      if (view.path("finished").asBoolean() || System.nanoTime() >= deadline) {
        return view;
      }
    }
  }

  public JsonNode post(String path, JsonNode body) throws IOException, InterruptedException {
    return anyNode("POST", path, body);
  }

  public JsonNode delete(String path) throws IOException, InterruptedException {
    return anyNode("DELETE", path, null);
  }

  private JsonNode anyNode(String method, String path, JsonNode body)
      throws IOException, InterruptedException {
    return anyNode(method, path, body, ConfigNodeWaits.API_REQUEST_TIMEOUT);
  }

  private JsonNode anyNode(String method, String path, JsonNode body, Duration timeout)
      throws IOException, InterruptedException {
    ApiException last = null;
    int first = preferred;
    for (int i = 0; i < nodes.size(); i++) {
      int at = (first + i) % nodes.size();
      try {
        Reply answer = send(nodes.get(at), method, path, body, timeout);
        preferred = answer.leader().map(nodes::indexOf).filter(known -> known >= 0).orElse(at);
        return answer.json();
      } catch (ApiException e) {
        if (!e.retryable()) {
          throw e;
        }
        last = e;
      }
    }
    if (nodes.size() == 1) {
      throw last;
    }
    throw new ApiException(
        last.status(),
        last.error(),
        "no ConfigNode could serve "
            + method
            + " "
            + path
            + " (tried "
            + String.join(", ", nodes)
            + "); last: "
            + last.getMessage());
  }

  /**
   * The samples of one node's {@code GET /metrics} (Prometheus text: {@code name value} lines), by
   * name.
   */
  public Map<String, Double> metrics(String node) throws IOException, InterruptedException {
    HttpResponse<String> resp;
    try {
      HttpRequest.Builder req =
          HttpRequest.newBuilder(URI.create(scheme + "://" + node + "/metrics"))
              .timeout(ConfigNodeWaits.API_REQUEST_TIMEOUT);
      authorization.ifPresent(a -> req.header("Authorization", a));
      resp = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new ApiException(0, "ConfigNode " + node + " unreachable: " + why(e));
    }
    if (resp.statusCode() != 200) {
      throw new ApiException(
          resp.statusCode(), "ConfigNode " + node + ": HTTP " + resp.statusCode() + " on /metrics");
    }
    Map<String, Double> out = new LinkedHashMap<>();
    for (String line : resp.body().split("\n")) {
      String[] parts = line.trim().split(" ");
      if (parts.length == 2 && !line.startsWith("#")) {
        try {
          out.put(parts[0], Double.parseDouble(parts[1]));
        } catch (NumberFormatException e) {
          // not a sample
        }
      }
    }
    return out;
  }

  public JsonNode call(String node, String method, String path, JsonNode body)
      throws IOException, InterruptedException {
    return call(node, method, path, body, ConfigNodeWaits.API_REQUEST_TIMEOUT);
  }

  private JsonNode call(String node, String method, String path, JsonNode body, Duration timeout)
      throws IOException, InterruptedException {
    return send(node, method, path, body, timeout).json();
  }

  /** A node's JSON answer and the leader it named, if any. */
  private record Reply(JsonNode json, Optional<String> leader) {}

  private Reply send(String node, String method, String path, JsonNode body, Duration timeout)
      throws IOException, InterruptedException {
    if (blocking.isPresent()) {
      return blockingCall(blocking.get(), node, method, path, body, timeout);
    }
    HttpRequest.Builder req =
        HttpRequest.newBuilder(URI.create(scheme + "://" + node + path)).timeout(timeout);
    authorization.ifPresent(a -> req.header("Authorization", a));
    if (method.equals("POST") || body != null) {
      // every POST declares JSON, an empty one too: the node refuses any other (415)
      req.header("Content-Type", JSON);
    }
    req.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(Json.LENIENT.writeValueAsBytes(body)));
    HttpResponse<byte[]> resp;
    try {
      resp = http.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new ApiException(0, "ConfigNode " + node + " unreachable: " + why(e));
    }
    return new Reply(
        answer(node, resp.statusCode(), resp.body()), resp.headers().firstValue(LEADER_HEADER));
  }

  /** A node's JSON answer, or its error answer thrown as an {@link ApiException}. */
  private static JsonNode answer(String node, int status, byte[] body) throws ApiException {
    JsonNode json;
    try {
      json = Json.LENIENT.readTree(body);
    } catch (IOException e) {
      throw new ApiException(status, "ConfigNode " + node + " sent no JSON");
    }
    if (status != HTTP_OK) {
      throw refusal(node, status, json);
    }
    return json;
  }

  /** {@link #call} as a blocking exchange on a kept-alive connection. */
  private Reply blockingCall(
      KeepAliveConnections connections,
      String node,
      String method,
      String path,
      JsonNode body,
      Duration timeout)
      throws IOException {
    byte[] json = null;
    if (method.equals("POST") || body != null) { // as in call(): every POST declares JSON
      json = body == null ? new byte[0] : Json.LENIENT.writeValueAsBytes(body);
    }
    KeepAliveConnections.Answer answer;
    try {
      answer = connections.exchange(node, method, path, authorization, json, timeout);
    } catch (IOException e) {
      throw new ApiException(0, "ConfigNode " + node + " unreachable: " + why(e));
    }
    return new Reply(answer(node, answer.status(), answer.body()), answer.leader());
  }

  /** A node's error answer as an exception carrying its status, error code and message. */
  private static ApiException refusal(String node, int status, JsonNode json) {
    String msg = json != null && json.has("message") ? json.get("message").asText() : "";
    String error = json != null && json.has("error") ? json.get("error").asText() : "";
    return new ApiException(
        status, error, "ConfigNode " + node + ": HTTP " + status + " " + error + ": " + msg);
  }

  /** The nodes this client asks, in the order given. */
  List<String> nodes() {
    return nodes;
  }

  /** How long this client keeps asking while no node can serve. */
  Duration patience() {
    return patience;
  }

  /**
   * Opens {@code node}'s server-sent events stream at {@code path} (sending {@code lastEventId} as
   * {@code Last-Event-ID} when given): its body, for the caller to read and close.
   *
   * @throws ApiException as {@link #call}: status 0 if the node did not answer
   */
  public InputStream openEventStream(String node, String path, Optional<String> lastEventId)
      throws IOException, InterruptedException {
    HttpRequest.Builder req =
        HttpRequest.newBuilder(URI.create(scheme + "://" + node + path))
            .timeout(ConfigNodeWaits.API_REQUEST_TIMEOUT)
            .header("Accept", EVENT_STREAM);
    authorization.ifPresent(a -> req.header("Authorization", a));
    lastEventId.ifPresent(id -> req.header(LAST_EVENT_ID, id));
    HttpResponse<InputStream> resp;
    try {
      resp = http.send(req.GET().build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      throw new ApiException(0, "ConfigNode " + node + " unreachable: " + why(e));
    }
    if (resp.statusCode() == 200) {
      return resp.body();
    }
    JsonNode json;
    try (InputStream body = resp.body()) {
      json = Json.LENIENT.readTree(body);
    } catch (IOException e) {
      json = null;
    }
    throw refusal(node, resp.statusCode(), json);
  }

  /** Why a call got no answer, in words (the JDK's connect failures carry no message). */
  private static String why(IOException e) {
    if (e instanceof java.net.ConnectException) {
      return "connection refused";
    }
    if (e instanceof java.net.http.HttpTimeoutException) {
      return "no answer in time";
    }
    return e.getMessage() != null ? e.getMessage() : "connection failed";
  }
}
