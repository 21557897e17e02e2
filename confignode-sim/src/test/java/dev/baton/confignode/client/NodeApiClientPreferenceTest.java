package dev.baton.confignode.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client of several nodes starts each call at the node that answered last: a node that cannot
 * serve (cut off from the leader, restarting) costs one request, not one per call. A node that
 * names the leader ({@link NodeApiClient#LEADER_HEADER}) sends the next calls there, when the
 * client knows that address.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NodeApiClientPreferenceTest {
  private static final Duration PATIENCE = Duration.ofSeconds(5);

  private HttpServer nodeA;
  private HttpServer nodeB;
  private final AtomicInteger aHits = new AtomicInteger();
  private final AtomicInteger bHits = new AtomicInteger();

  @AfterEach
  void stop() {
    for (HttpServer s : new HttpServer[] {nodeA, nodeB}) {
      if (s != null) {
        s.stop(0);
      }
    }
  }

  private static HttpServer answering(int status, String body, AtomicInteger hits)
      throws IOException {
    return answering(status, body, hits, new AtomicReference<>());
  }

  /** A node answering {@code status} and {@code body}, naming {@code leader} when it is set. */
  private static HttpServer answering(
      int status, String body, AtomicInteger hits, AtomicReference<String> leader)
      throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    s.createContext(
        "/",
        exchange -> {
          hits.incrementAndGet();
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          if (leader.get() != null) {
            exchange.getResponseHeaders().add(NodeApiClient.LEADER_HEADER, leader.get());
          }
          exchange.sendResponseHeaders(status, bytes.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
          }
        });
    s.start();
    return s;
  }

  private static String address(HttpServer s) {
    return "127.0.0.1:" + s.getAddress().getPort();
  }

  @Test
  void aNodeThatCannotServeIsAskedOnceThenTheOneThatAnsweredIsAskedFirst() throws Exception {
    nodeA = answering(503, "{\"error\":\"unavailable\",\"message\":\"no leader\"}", aHits);
    nodeB = answering(200, "{\"procId\":7}", bHits);
    NodeApiClient client = new NodeApiClient(List.of(address(nodeA), address(nodeB)), PATIENCE);

    for (int i = 0; i < 5; i++) {
      assertEquals(7, client.submit("Sleep", null, null, null));
    }

    assertEquals(1, aHits.get(), "the node that could not serve was asked again");
    assertEquals(5, bHits.get());
  }

  @Test
  void whenThePreferredNodeFailsTheOthersAreStillTried() throws Exception {
    nodeB = answering(200, "{\"procId\":3}", bHits);
    nodeA = answering(200, "{\"procId\":3}", aHits);
    NodeApiClient client = new NodeApiClient(List.of(address(nodeB), address(nodeA)), PATIENCE);
    assertEquals(3, client.submit("Sleep", null, null, null));
    nodeB.stop(0);
    nodeB = null;

    assertEquals(3, client.submit("Sleep", null, null, null));
    assertEquals(3, client.submit("Sleep", null, null, null));

    assertEquals(1, bHits.get());
    assertEquals(2, aHits.get());
  }

  @ParameterizedTest(name = "keep-alive connections: {0}")
  @ValueSource(booleans = {false, true})
  void aFollowerThatNamesTheLeaderSendsTheNextCallsToTheLeader(boolean keepAlive) throws Exception {
    AtomicReference<String> named = new AtomicReference<>();
    nodeA = answering(200, "{\"procId\":5}", aHits, named);
    nodeB = answering(200, "{\"procId\":5}", bHits);
    named.set(address(nodeB));
    NodeApiClient client = new NodeApiClient(List.of(address(nodeA), address(nodeB)), PATIENCE);
    client = keepAlive ? client.withKeepAliveConnections() : client;

    for (int i = 0; i < 5; i++) {
      assertEquals(5, client.submit("Sleep", null, null, null));
    }

    assertEquals(1, aHits.get(), "the follower was asked again after it named the leader");
    assertEquals(4, bHits.get());
  }

  @Test
  void aLeaderTheClientDoesNotKnowIsIgnored() throws Exception {
    AtomicReference<String> named = new AtomicReference<>("127.0.0.1:1");
    nodeA = answering(200, "{\"procId\":5}", aHits, named);
    nodeB = answering(200, "{\"procId\":5}", bHits);
    NodeApiClient client = new NodeApiClient(List.of(address(nodeA), address(nodeB)), PATIENCE);

    for (int i = 0; i < 3; i++) {
      assertEquals(5, client.submit("Sleep", null, null, null));
    }

    assertEquals(3, aHits.get());
    assertEquals(0, bHits.get());
  }
}
