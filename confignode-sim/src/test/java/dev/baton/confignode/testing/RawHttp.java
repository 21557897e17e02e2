package dev.baton.confignode.testing;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.http.Json;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Plain HTTP requests to an admin API, returning status, content type and body as sent. A 503 (the
 * cluster did not answer within the node's wait, which a heavily loaded machine can cause) or a
 * failed connection is retried for up to {@link #RETRY_WAIT}; callers make their submissions
 * idempotent with nonces, so a retry cannot create a second procedure.
 */
public final class RawHttp {
  public static final Duration TIMEOUT = Duration.ofSeconds(30);

  public static final Duration RETRY_WAIT = Duration.ofSeconds(90);

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final String base;
  private final Map<String, String> headers;

  public RawHttp(String hostPort) {
    this("http://" + hostPort, Map.of());
  }

  private RawHttp(String base, Map<String, String> headers) {
    this.base = base;
    this.headers = Map.copyOf(headers);
  }

  /** This client sending {@code Authorization: Bearer TOKEN} with every request. */
  public RawHttp withToken(String token) {
    Map<String, String> h = new LinkedHashMap<>(headers);
    h.put("Authorization", "Bearer " + token);
    return new RawHttp(base, h);
  }

  public record Reply(int status, String contentType, String body, HttpHeaders headers) {
    /** The reply's header {@code name}, if it has one. */
    public Optional<String> header(String name) {
      return headers.firstValue(name);
    }

    public JsonNode json() {
      try {
        return Json.LENIENT.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("answer is not JSON: " + body, e);
      }
    }

    /**
     * Asserts a JSON error {@code {error, message}} with this status and code, and no trace of a
     * Java exception or stack frame; returns the message.
     */
    public String assertError(int wantStatus, String wantError) {
      assertEquals(wantStatus, status, () -> "status of " + body);
      assertEquals("application/json", contentType, body);
      JsonNode j = json();
      assertTrue(j.isObject(), body);
      assertEquals(2, j.size(), () -> "exactly error and message: " + body);
      assertEquals(wantError, j.path("error").asText(), body);
      String message = j.path("message").asText();
      assertFalse(message.isBlank(), body);
      assertFalse(body.contains("Exception"), () -> "an exception leaks: " + body);
      assertFalse(body.contains("\tat ") || body.contains("at dev.baton"), body);
      assertFalse(body.contains("com.fasterxml"), () -> "Jackson internals leak: " + body);
      return message;
    }
  }

  public Reply get(String path) {
    return send("GET", path, null);
  }

  public Reply post(String path, String body) {
    return send("POST", path, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
  }

  public Reply send(String method, String path, byte[] body) {
    return send(method, path, body, Map.of());
  }

  /**
   * As {@link #send(String, String, byte[])} with {@code extra} headers, which replace this
   * client's own (e.g. another Content-Type).
   */
  public Reply send(String method, String path, byte[] body, Map<String, String> extra) {
    return retried(
        method, path, body == null ? null : HttpRequest.BodyPublishers.ofByteArray(body), extra);
  }

  /**
   * As {@link #send(String, String, byte[])}, the body sent without a declared length (HTTP/1.1
   * chunks), as a client that streams its body does.
   */
  public Reply sendChunked(String method, String path, byte[] body) {
    return retried(
        method,
        path,
        HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)),
        Map.of());
  }

  /** Sent again while the connection fails or the node answers 503; {@code body} null for none. */
  private Reply retried(
      String method, String path, HttpRequest.BodyPublisher body, Map<String, String> extra) {
    return await()
        .atMost(RETRY_WAIT)
        .ignoreExceptionsInstanceOf(IOException.class)
        .until(() -> sendOnce(method, path, body, extra), r -> r.status() != 503);
  }

  private Reply sendOnce(
      String method, String path, HttpRequest.BodyPublisher body, Map<String, String> extra)
      throws IOException, InterruptedException {
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT);
    req.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : body);
    Map<String, String> all = new LinkedHashMap<>(headers);
    if (body != null || method.equals("POST")) {
      // every POST declares JSON, an empty one too: the node refuses any other (415)
      all.put("Content-Type", "application/json");
    }
    all.putAll(extra);
    all.forEach(req::header);
    HttpResponse<String> resp =
        http.send(req.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    return new Reply(
        resp.statusCode(),
        resp.headers().firstValue("Content-Type").orElse(""),
        resp.body(),
        resp.headers());
  }
}
