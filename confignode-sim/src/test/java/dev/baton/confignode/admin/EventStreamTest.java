package dev.baton.confignode.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.events.EventId;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.node.ConfigNodeServer;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import dev.baton.confignode.testing.SimClusterExtension;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /api/events}: procedure changes arrive as server-sent events named by log position; a
 * watcher that reconnects to another node with {@code Last-Event-ID} gets exactly the events after
 * it; a malformed filter is a 400.
 */
@Timeout(120)
class EventStreamTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension static final SimClusterExtension CLUSTER = new SimClusterExtension(3, 0);

  /** One SSE frame as received. */
  record Frame(String id, String event, JsonNode data) {}

  /** A watcher reading frames into a list on its own thread until closed. */
  static final class Watcher implements AutoCloseable {
    final List<Frame> frames = new CopyOnWriteArrayList<>();
    final int status;
    private final InputStream body;

    Watcher(ConfigNodeServer node, String query, Optional<String> lastEventId) throws Exception {
      HttpRequest.Builder req =
          HttpRequest.newBuilder(
                  URI.create("http://" + SimCluster.http(node) + "/api/events" + query))
              .timeout(WAIT);
      lastEventId.ifPresent(id -> req.header(EventRoutes.LAST_EVENT_ID, id));
      HttpResponse<InputStream> res =
          HttpClient.newHttpClient().send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
      status = res.statusCode();
      body = res.body();
      Thread reader = new Thread(this::read, "event-watcher");
      reader.setDaemon(true);
      reader.start();
    }

    private void read() {
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
        String id = null;
        String event = null;
        String line;
        while ((line = in.readLine()) != null) {
          if (line.startsWith("id: ")) {
            id = line.substring(4);
          } else if (line.startsWith("event: ")) {
            event = line.substring(7);
          } else if (line.startsWith("data: ")) {
            frames.add(new Frame(id, event, Json.LENIENT.readTree(line.substring(6))));
            id = null;
            event = null;
          }
        }
      } catch (Exception e) {
        // closed by the test
      }
    }

    List<Frame> procedureEvents(long procId) {
      List<Frame> out = new ArrayList<>();
      for (Frame f : frames) {
        if ("procedure".equals(f.event()) && f.data().path("procId").asLong() == procId) {
          out.add(f);
        }
      }
      return out;
    }

    @Override
    public void close() throws Exception {
      body.close();
    }
  }

  private static long submitSleep(ConfigNodeServer node) {
    RawHttp.Reply r =
        new RawHttp(SimCluster.http(node))
            .post("/api/procedures", "{\"type\":\"Sleep\",\"args\":{\"millis\":10}}");
    assertEquals(HttpURLConnection.HTTP_OK, r.status(), r.body());
    return r.json().path("procId").asLong();
  }

  private static ConfigNodeServer follower() {
    ConfigNodeServer leader = CLUSTER.cluster().leader();
    return CLUSTER.cluster().nodes().stream().filter(n -> n != leader).findFirst().orElseThrow();
  }

  @Test
  void resumingOnAnotherNodeGetsOnlyTheLaterEvents() throws Exception {
    ConfigNodeServer follower = follower();
    ConfigNodeServer leader = CLUSTER.cluster().leader();
    long first;
    long second;
    String resumeFrom;
    List<Frame> afterFirst;
    try (Watcher live = new Watcher(follower, "", Optional.empty())) {
      assertEquals(HttpURLConnection.HTTP_OK, live.status);
      Awaitility.await().atMost(WAIT).until(() -> !live.frames.isEmpty());
      assertEquals("ready", live.frames.get(0).event());
      first = submitSleep(leader);
      Awaitility.await()
          .atMost(WAIT)
          .until(
              () ->
                  live.procedureEvents(first).stream()
                      .anyMatch(f -> f.data().path("finished").asBoolean()));
      List<Frame> firstEvents = live.procedureEvents(first);
      assertEquals("Sleep", firstEvents.get(0).data().path("type").asText());
      resumeFrom = firstEvents.get(firstEvents.size() - 1).id();
      second = submitSleep(follower);
      Awaitility.await()
          .atMost(WAIT)
          .until(
              () ->
                  live.procedureEvents(second).stream()
                      .anyMatch(f -> f.data().path("finished").asBoolean()));
      afterFirst = live.procedureEvents(second);
    }
    // the leader names the same changes by the same ids: resuming there replays exactly those after
    try (Watcher resumed = new Watcher(leader, "?type=Sleep", Optional.of(resumeFrom))) {
      assertEquals(HttpURLConnection.HTTP_OK, resumed.status);
      Awaitility.await()
          .atMost(WAIT)
          .until(() -> resumed.procedureEvents(second).size() >= afterFirst.size());
      EventId from = EventId.parse(resumeFrom).orElseThrow();
      for (Frame f : resumed.frames) {
        if ("procedure".equals(f.event())) {
          assertTrue(
              EventId.parse(f.id()).orElseThrow().compareTo(from) > 0,
              "replayed " + f.id() + ", not after " + resumeFrom);
        }
      }
      assertTrue(resumed.procedureEvents(first).isEmpty(), "events of the first came again");
      assertEquals(
          afterFirst.stream().map(Frame::id).toList(),
          resumed.procedureEvents(second).stream().map(Frame::id).toList());
      assertFalse(resumed.frames.stream().anyMatch(f -> "reset".equals(f.event())));
    }
  }

  /**
   * Watchers that hang up while changes flow end on the node's side without holding anything: a
   * stream whose write fails ends its watch, which takes the log's lock, while the log's thread,
   * holding that lock, sends to the stream; after many such hang-ups a new watcher is still served
   * at once and gets the changes.
   */
  @Test
  void watchersThatHangUpWhileChangesFlowLeaveTheStreamServing() throws Exception {
    ConfigNodeServer leader = CLUSTER.cluster().leader();
    java.util.concurrent.atomic.AtomicBoolean flowing =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    Thread load =
        new Thread(
            () -> {
              while (flowing.get()) {
                submitSleep(leader);
              }
            },
            "event-load");
    load.setDaemon(true);
    load.start();
    try {
      for (int round = 0; round < HANG_UP_ROUNDS; round++) {
        List<Watcher> watchers = new ArrayList<>();
        for (int i = 0; i < WATCHERS_PER_ROUND; i++) {
          watchers.add(new Watcher(leader, "", Optional.empty()));
        }
        for (Watcher w : watchers) {
          Awaitility.await()
              .atMost(WAIT)
              .until(() -> w.frames.stream().anyMatch(f -> "procedure".equals(f.event())));
          w.close();
        }
      }
    } finally {
      flowing.set(false);
      load.join(WAIT.toMillis());
    }
    try (Watcher fresh = new Watcher(leader, "", Optional.empty())) {
      assertEquals(HttpURLConnection.HTTP_OK, fresh.status);
      long id = submitSleep(leader);
      Awaitility.await()
          .atMost(WAIT)
          .until(
              () ->
                  fresh.procedureEvents(id).stream()
                      .anyMatch(f -> f.data().path("finished").asBoolean()));
    }
  }

  private static final int HANG_UP_ROUNDS = 10;
  private static final int WATCHERS_PER_ROUND = 5;

  @Test
  void aMalformedFilterIsABadRequest() {
    RawHttp.Reply r = new RawHttp(SimCluster.http(follower())).get("/api/events?procId=x");
    r.assertError(HttpURLConnection.HTTP_BAD_REQUEST, "invalid_request");
  }
}
