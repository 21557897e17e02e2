package dev.baton.confignode.datanode;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.http.HttpLimits;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.http.JsonExchange;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A DataNode whose every command slot is held by stalled commands answers further commands 503 JSON
 * quickly instead of queueing them without bound, still serves {@code /state} and fault control
 * (which bypass the cap), and serves the held commands once the stall is released.
 */
@Timeout(60)
class DataNodeLimitsTest {
  static final int SLOTS = 2;
  static final int WAITING = 2;
  static final Duration MAX_WAIT = Duration.ofMillis(300);
  static final Duration QUICK = Duration.ofSeconds(5);

  @TempDir Path dir;

  private final HttpClient http = DataNodeClient.newHttpClient();
  private DataNodeServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private CompletableFuture<HttpResponse<String>> ping(int procId) {
    String body = "{\"term\":1,\"procId\":" + procId + ",\"step\":\"P\"}";
    return http.sendAsync(
        HttpRequest.newBuilder(URI.create("http://" + server.address() + "/ping"))
            .header("Content-Type", JsonExchange.CONTENT_TYPE)
            .timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void stalledCommandsHoldingEverySlotMakeTheRestA503AndControlStillAnswers() throws Exception {
    server =
        new DataNodeServer(
                DataNodeConfig.of(1, dir)
                    .withGuard(DataNodeGuard.PLAIN.withFaults(true))
                    .withLimits(HttpLimits.DATANODE.withRequests(SLOTS, WAITING, MAX_WAIT)))
            .start();
    DataNodeClient client = new DataNodeClient(server.address());
    client.stall();
    List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
    for (int i = 1; i <= SLOTS; i++) {
      held.add(ping(i));
    }
    await().atMost(QUICK).until(() -> client.state().faults().waiting() >= SLOTS);

    long start = System.nanoTime();
    List<CompletableFuture<HttpResponse<String>>> extra = new ArrayList<>();
    for (int i = 0; i < WAITING + 3; i++) {
      extra.add(ping(100 + i));
    }
    for (CompletableFuture<HttpResponse<String>> f : extra) {
      HttpResponse<String> r = f.get(QUICK.toMillis(), TimeUnit.MILLISECONDS);
      assertEquals(HttpURLConnection.HTTP_UNAVAILABLE, r.statusCode(), r.body());
      assertEquals("overloaded", Json.LENIENT.readTree(r.body()).path("error").asText(), r.body());
    }
    assertTrue(Duration.ofNanos(System.nanoTime() - start).compareTo(QUICK) < 0);
    assertEquals(SLOTS, client.state().faults().waiting(), "state answers meanwhile");

    client.releaseStall();
    for (CompletableFuture<HttpResponse<String>> f : held) {
      HttpResponse<String> r = f.get(QUICK.toMillis(), TimeUnit.MILLISECONDS);
      assertEquals(HttpURLConnection.HTTP_OK, r.statusCode(), r.body());
    }
    assertEquals(HttpURLConnection.HTTP_OK, ping(200).get().statusCode());
  }
}
