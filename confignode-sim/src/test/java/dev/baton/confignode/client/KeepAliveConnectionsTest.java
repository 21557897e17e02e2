package dev.baton.confignode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.baton.confignode.http.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client with kept-alive connections sends its calls on one connection while a node keeps it
 * open, reads bodies sized by {@code Content-Length} and chunked ones, sends the JSON body and the
 * Authorization header, and reports a node's error answer as the JDK client's calls do.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class KeepAliveConnectionsTest {
  private static final Duration PATIENCE = Duration.ofSeconds(5);
  private static final int CALLS = 5;

  /** Calls made at once, each on a connection of its own, before the pool is used one at a time. */
  private static final int AT_ONCE = 4;

  private HttpServer node;
  private final Set<InetSocketAddress> peers = ConcurrentHashMap.newKeySet();
  private final Set<String> authorizations = ConcurrentHashMap.newKeySet();
  private final AtomicInteger busyAnswers = new AtomicInteger();
  private final CountDownLatch allArrived = new CountDownLatch(AT_ONCE);
  private final List<InetSocketAddress> callers = new CopyOnWriteArrayList<>();
  private final ExecutorService handlers = Executors.newCachedThreadPool();

  @BeforeEach
  void start() throws IOException {
    node = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    node.createContext("/sized", exchange -> answer(exchange, 200, "{\"procId\":7}", false));
    node.createContext("/chunked", exchange -> answer(exchange, 200, "{\"procId\":8}", true));
    node.createContext(
        "/echo",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          JsonNode sent = Json.LENIENT.readTree(body);
          answer(
              exchange,
              200,
              "{\"procId\":" + sent.path("nonce").path("nonce").asLong() + "}",
              false);
        });
    node.createContext(
        "/busy",
        exchange -> {
          busyAnswers.incrementAndGet();
          answer(exchange, 503, "{\"error\":\"overloaded\",\"message\":\"busy\"}", false);
        });
    node.createContext(
        "/missing",
        exchange ->
            answer(
                exchange, 404, "{\"error\":\"not_found\",\"message\":\"no procedure 9\"}", false));
    node.createContext(
        "/together",
        exchange -> {
          // answers once AT_ONCE calls are in: each call holds a connection of its own till then
          allArrived.countDown();
          try {
            if (!allArrived.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
              answer(exchange, 504, "{\"error\":\"timeout\",\"message\":\"alone\"}", false);
              return;
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          answer(exchange, 200, "{\"procId\":9}", false);
        });
    node.createContext(
        "/whose",
        exchange -> {
          callers.add(exchange.getRemoteAddress());
          answer(exchange, 200, "{\"procId\":10}", false);
        });
    node.setExecutor(handlers);
    node.start();
  }

  @AfterEach
  void stop() {
    node.stop(0);
    handlers.shutdownNow();
  }

  private void answer(HttpExchange exchange, int status, String body, boolean chunked)
      throws IOException {
    peers.add(exchange.getRemoteAddress());
    String auth = exchange.getRequestHeaders().getFirst("Authorization");
    if (auth != null) {
      authorizations.add(auth);
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, chunked ? 0 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private NodeApiClient client() {
    String address = "127.0.0.1:" + node.getAddress().getPort();
    return new NodeApiClient(List.of(address), PATIENCE)
        .withToken("secret")
        .withKeepAliveConnections();
  }

  /** {@link #CALLS} reads of {@code path} answer {@code procId}; on how many connections. */
  private int connectionsOfCalls(String path, long procId) throws Exception {
    NodeApiClient client = client();
    for (int i = 0; i < CALLS; i++) {
      assertEquals(procId, client.get(path).get("procId").asLong());
    }
    return peers.size();
  }

  @Test
  void callsOnOneThreadShareOneConnection() throws Exception {
    assertEquals(1, connectionsOfCalls("/sized", 7), "calls opened connections of their own");
    assertEquals(Set.of("Bearer secret"), authorizations);
  }

  @Test
  void theClientCountsTheConnectionsItOpened() throws Exception {
    NodeApiClient client = client();
    assertEquals(0, client.connectionsOpened(), "before any call");
    for (int i = 0; i < CALLS; i++) {
      client.get("/sized");
    }
    // as many as the node saw (one, unless a call came after the idle bound on a loaded machine)
    assertEquals(peers.size(), client.connectionsOpened(), "connections the node saw");
  }

  @Test
  void aChunkedBodyIsReadWholeAndTheConnectionKept() throws Exception {
    assertEquals(1, connectionsOfCalls("/chunked", 8), "a chunked answer cost its connection");
  }

  @Test
  void aConnectionIdleTooLongIsNotUsedAgain() throws Exception {
    String address = "127.0.0.1:" + node.getAddress().getPort();
    try (KeepAliveConnections connections =
        new KeepAliveConnections(Optional.empty(), PATIENCE, Duration.ZERO)) {
      for (int i = 0; i < CALLS; i++) {
        KeepAliveConnections.Answer answer =
            connections.exchange(address, "GET", "/sized", Optional.empty(), null, PATIENCE);
        assertEquals(200, answer.status());
      }
      assertEquals(CALLS, connections.opened(), "connections opened, as counted");
    }
    assertEquals(CALLS, peers.size(), "a connection idle past the bound was used again");
  }

  @Test
  void callsOneAtATimeGoRoundEveryPooledConnection() throws Exception {
    String address = "127.0.0.1:" + node.getAddress().getPort();
    ExecutorService together = Executors.newFixedThreadPool(AT_ONCE);
    try (KeepAliveConnections connections = new KeepAliveConnections(Optional.empty(), PATIENCE)) {
      List<Future<KeepAliveConnections.Answer>> answers = new ArrayList<>();
      for (int i = 0; i < AT_ONCE; i++) {
        answers.add(
            together.submit(
                () ->
                    connections.exchange(
                        address, "GET", "/together", Optional.empty(), null, PATIENCE)));
      }
      for (Future<KeepAliveConnections.Answer> answer : answers) {
        assertEquals(200, answer.get().status());
      }
      assertEquals(AT_ONCE, connections.opened(), "connections the calls at once opened");
      for (int i = 0; i < AT_ONCE; i++) {
        KeepAliveConnections.Answer answer =
            connections.exchange(address, "GET", "/whose", Optional.empty(), null, PATIENCE);
        assertEquals(200, answer.status());
      }
      // the one idle longest goes first: every pooled connection was used once, none left idle
      assertEquals(AT_ONCE, Set.copyOf(callers).size(), "connections the calls in turn used");
      assertEquals(AT_ONCE, connections.opened(), "connections opened, as counted");
    } finally {
      together.shutdownNow();
    }
  }

  @Test
  void aPostCarriesItsJsonBody() throws Exception {
    NodeApiClient client = client();
    JsonNode answer =
        client.post(
            "/echo",
            Json.LENIENT
                .createObjectNode()
                .set("nonce", Json.LENIENT.createObjectNode().put("nonce", 42)));
    assertEquals(42, answer.get("procId").asLong());
  }

  @Test
  void anErrorAnswerIsAnApiExceptionWithTheNodesCode() {
    NodeApiClient.ApiException e =
        assertThrows(
            NodeApiClient.ApiException.class,
            () ->
                client().call("127.0.0.1:" + node.getAddress().getPort(), "GET", "/missing", null));
    assertEquals(404, e.status());
    assertEquals("not_found", e.error());
  }

  @Test
  void anOverloadedAnswerIsReportedNotSentAgain() {
    String address = "127.0.0.1:" + node.getAddress().getPort();
    for (String method : List.of("GET", "POST")) {
      busyAnswers.set(0);
      NodeApiClient.ApiException e =
          assertThrows(
              NodeApiClient.ApiException.class,
              () -> client().call(address, method, "/busy", null));
      assertEquals(503, e.status());
      assertEquals(1, busyAnswers.get(), method + " was sent again after a 503");
    }
  }

  @Test
  void aNodeThatIsDownIsUnreachableNotAnError() throws Exception {
    int port;
    try (ServerSocket closedSoon = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = closedSoon.getLocalPort();
    }
    NodeApiClient.ApiException e =
        assertThrows(
            NodeApiClient.ApiException.class,
            () -> client().call("127.0.0.1:" + port, "GET", "/sized", null));
    assertEquals(0, e.status());
  }
}
