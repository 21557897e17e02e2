package dev.baton.confignode.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.testing.SlowClients;
import java.net.HttpURLConnection;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The limits of the simulation's HTTP server, reached with a service that blocks on a latch: a
 * saturated server answers 503 JSON quickly, never hangs; a header dripped byte by byte is cut off
 * and starves nobody; oversized headers are a JSON 431.
 */
@Timeout(60)
class JettyHttpServerTest {
  /** How long a request may wait for a handler slot in these tests. */
  static final Duration MAX_WAIT = Duration.ofMillis(300);

  /** The most a refused request may take to be answered: the wait plus slack for a busy machine. */
  static final Duration QUICK = Duration.ofSeconds(5);

  /** Handler slots of the saturation test. */
  static final int SLOTS = 2;

  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch entered = new CountDownLatch(SLOTS);

  /** Requests of the exemption test: more than the slots and the waiting line together. */
  static final int EXEMPT = SLOTS + 4;

  private final CountDownLatch enteredExempt = new CountDownLatch(EXEMPT);
  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private JettyHttpServer server;

  @AfterEach
  void stop() {
    release.countDown();
    if (server != null) {
      server.close();
    }
  }

  /** A server whose {@code /block} holds its handler until {@link #release}. */
  private JettyHttpServer start(HttpLimits limits) throws Exception {
    return start(limits, b -> {});
  }

  /** As {@link #start(HttpLimits)}, with {@code configure} applied to the builder. */
  private JettyHttpServer start(HttpLimits limits, Consumer<JettyHttpServer.Builder> configure)
      throws Exception {
    JettyHttpServer.Builder builder =
        JettyHttpServer.builder(
                "test",
                call -> {
                  if (call.path().equals("/block")) {
                    entered.countDown();
                    enteredExempt.countDown();
                    try {
                      release.await();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  }
                  return HttpReply.json(HttpURLConnection.HTTP_OK, Map.of("path", call.path()));
                })
            .bind("127.0.0.1", 0)
            .limits(limits);
    configure.accept(builder);
    server = builder.start();
    return server;
  }

  private CompletableFuture<HttpResponse<String>> get(String path) {
    return client.sendAsync(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
            .timeout(Duration.ofSeconds(30))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aSaturatedServerAnswers503JsonQuicklyAndServesTheHeldRequestsOnceFree() throws Exception {
    int waiting = 2;
    start(HttpLimits.ADMIN.withRequests(SLOTS, waiting, MAX_WAIT));
    List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
    for (int i = 0; i < SLOTS; i++) {
      held.add(get("/block"));
    }
    assertTrue(entered.await(QUICK.toMillis(), TimeUnit.MILLISECONDS), "both slots taken");
    // more than the slots and the waiting line together: the excess is refused at once, the
    // waiting ones once they waited MAX_WAIT
    List<CompletableFuture<HttpResponse<String>>> extra = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < waiting + 3; i++) {
      extra.add(get("/other"));
    }
    for (CompletableFuture<HttpResponse<String>> f : extra) {
      HttpResponse<String> r = f.get(QUICK.toMillis(), TimeUnit.MILLISECONDS);
      assertEquals(HttpURLConnection.HTTP_UNAVAILABLE, r.statusCode(), r.body());
      assertEquals(JsonExchange.CONTENT_TYPE, r.headers().firstValue("Content-Type").orElse(""));
      JsonNode body = Json.LENIENT.readTree(r.body());
      assertEquals(JsonErrorHandler.OVERLOADED, body.path("error").asText(), r.body());
      assertTrue(body.path("message").asText().contains("retry"), r.body());
    }
    assertTrue(
        Duration.ofNanos(System.nanoTime() - start).compareTo(QUICK) < 0,
        "every refusal came within " + QUICK);
    assertTrue(held.stream().noneMatch(CompletableFuture::isDone), "the blocked ones still run");

    release.countDown();
    for (CompletableFuture<HttpResponse<String>> f : held) {
      assertEquals(
          HttpURLConnection.HTTP_OK, f.get(QUICK.toMillis(), TimeUnit.MILLISECONDS).statusCode());
    }
    assertEquals(HttpURLConnection.HTTP_OK, get("/after").get().statusCode());
  }

  @Test
  void requestsExemptByMethodAndPathSkipTheCapWhileTheSamePathsOtherMethodDoesNot()
      throws Exception {
    start(
        HttpLimits.ADMIN.withRequests(SLOTS, 1, MAX_WAIT),
        b -> b.unlimitedRequest("POST", "/block"));
    List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
    for (int i = 0; i < EXEMPT; i++) {
      held.add(post("/block"));
    }
    assertTrue(
        enteredExempt.await(QUICK.toMillis(), TimeUnit.MILLISECONDS),
        "exempt requests inside: " + (EXEMPT - enteredExempt.getCount()) + " of " + EXEMPT);
    // GETs of the same path count: SLOTS take the slots, one waits, and the two beyond are refused
    int refused = 2;
    CountDownLatch answered = new CountDownLatch(refused);
    List<Integer> statuses = new CopyOnWriteArrayList<>();
    List<CompletableFuture<HttpResponse<String>>> gets = new ArrayList<>();
    for (int i = 0; i < SLOTS + refused; i++) {
      gets.add(
          get("/block")
              .whenComplete(
                  (r, e) -> {
                    statuses.add(r == null ? 0 : r.statusCode());
                    answered.countDown();
                  }));
    }
    assertTrue(answered.await(QUICK.toMillis(), TimeUnit.MILLISECONDS), "two GETs answered");
    assertEquals(
        List.of(HttpURLConnection.HTTP_UNAVAILABLE, HttpURLConnection.HTTP_UNAVAILABLE),
        statuses,
        "the GETs answered while the slots are held");
    release.countDown();
    for (CompletableFuture<HttpResponse<String>> f : held) {
      assertEquals(
          HttpURLConnection.HTTP_OK, f.get(QUICK.toMillis(), TimeUnit.MILLISECONDS).statusCode());
    }
    for (CompletableFuture<HttpResponse<String>> f : gets) {
      f.get(QUICK.toMillis(), TimeUnit.MILLISECONDS);
    }
    assertEquals(
        SLOTS,
        statuses.stream().filter(code -> code == HttpURLConnection.HTTP_OK).count(),
        "GETs served once the slots were free: " + statuses);
  }

  private CompletableFuture<HttpResponse<String>> post(String path) {
    return client.sendAsync(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aClientDrippingHeadersIsCutOffAndOthersAreServedMeanwhile() throws Exception {
    Duration headerTimeout = Duration.ofSeconds(1);
    start(HttpLimits.ADMIN.withHeaderTimeout(headerTimeout));
    List<Socket> drippers = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      drippers.add(SlowClients.connect("127.0.0.1", server.port(), Duration.ofMillis(100)));
    }
    long start = System.nanoTime();
    boolean[] open = new boolean[drippers.size()];
    java.util.Arrays.fill(open, true);
    int sent = 0;
    // drip a byte every 100 ms on each (never idle), until the server cut every one off
    while (System.nanoTime() - start < headerTimeout.multipliedBy(10).toNanos()) {
      boolean any = false;
      for (int i = 0; i < drippers.size(); i++) {
        if (open[i]
            && (!SlowClients.drip(drippers.get(i), sent)
                || SlowClients.closedByServer(drippers.get(i)))) {
          open[i] = false;
        }
        any |= open[i];
      }
      sent++;
      if (sent == 3) {
        HttpResponse<String> r = get("/meanwhile").get(QUICK.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(HttpURLConnection.HTTP_OK, r.statusCode(), "a ninth client is served");
      }
      if (!any) {
        break;
      }
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    for (int i = 0; i < open.length; i++) {
      assertTrue(!open[i], "dripping connection " + i + " still open after " + took);
    }
    assertTrue(took.compareTo(headerTimeout) >= 0, "cut off only after the deadline: " + took);
    for (Socket s : drippers) {
      s.close();
    }
  }

  @Test
  void headersOverTheLimitAreA431JsonError() throws Exception {
    start(HttpLimits.ADMIN);
    String big = "x".repeat(HttpLimits.ADMIN.maxRequestHeaderBytes() + 1);
    String answer =
        SlowClients.exchange(
            "127.0.0.1",
            server.port(),
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + big + "\r\nConnection: close\r\n\r\n");
    assertEquals(431, SlowClients.status(answer), answer);
    assertTrue(answer.contains(JsonExchange.CONTENT_TYPE), answer);
    assertTrue(answer.contains("\"error\":\"" + JsonErrorHandler.BAD_REQUEST + "\""), answer);
  }
}
