package dev.baton.confignode.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.http.Paging;
import dev.baton.confignode.procedures.ProcedureLimits;
import dev.baton.confignode.testing.RawHttp;
import dev.baton.confignode.testing.SimCluster;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Limits an operator sets on a node (live procedures, Noop steps, Sleep length) and the paged
 * procedure list, through the admin API of a 3-node cluster.
 */
@Timeout(180)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SubmissionLimitsTest {
  private static final int LIVE_CAP = 3;
  private static final int NOOP_STEPS = 5;
  private static final long SLEEP_MILLIS = 120_000;
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  @TempDir static Path dir;
  private static SimCluster cluster;
  private static RawHttp http;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        SimCluster.start(dir, 3, 1, false, new ProcedureLimits(LIVE_CAP, NOOP_STEPS, SLEEP_MILLIS));
    http = new RawHttp(SimCluster.http(cluster.follower()));
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String submit(String type, String args) {
    return "{\"type\":\"" + type + "\",\"args\":" + args + "}";
  }

  @Test
  @Order(2) // fills the cap for good: last
  void limitsRefuseWhatGoesPastThemAndTheLiveCapIs429() throws Exception {
    http.post("/api/procedures", submit("Noop", "{\"steps\":" + (NOOP_STEPS + 1) + "}"))
        .assertError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST);
    http.post("/api/procedures", submit("Sleep", "{\"millis\":" + (SLEEP_MILLIS + 1) + "}"))
        .assertError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST);

    // the AddDataNode of the cluster's start has finished; fill the cap with long sleeps
    SimCluster.waiting().until(() -> cluster.list().stream().allMatch(p -> p.finished()));
    for (int i = 0; i < LIVE_CAP; i++) {
      RawHttp.Reply ok = http.post("/api/procedures", submit("Sleep", "{\"millis\":100000}"));
      assertEquals(HttpURLConnection.HTTP_OK, ok.status(), ok.body());
    }
    RawHttp.Reply full = http.post("/api/procedures", submit("Noop", "{}"));
    String message =
        full.assertError(HttpErrors.HTTP_TOO_MANY_REQUESTS, HttpErrors.TOO_MANY_PROCEDURES);
    assertTrue(message.contains("cap is " + LIVE_CAP), message);
  }

  @Test
  @Order(1)
  void pagesHoldEveryProcedureExactlyOnceInIdOrder() throws Exception {
    int count = 7;
    int page = 3;
    for (int i = 0; i < count; i++) {
      // one at a time: the live cap (3) refuses a submission while 3 are unfinished
      cluster.awaitFinished(cluster.submit("Noop"));
    }
    int total = http.get("/api/procedures?limit=" + Paging.MAX_PAGE).json().size();
    assertTrue(total >= count, "listed " + total);

    HttpClient client = HttpClient.newHttpClient();
    List<Long> seen = new ArrayList<>();
    long after = 0;
    while (true) {
      HttpResponse<String> resp =
          client.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://"
                              + SimCluster.http(cluster.leader())
                              + "/api/procedures?limit="
                              + page
                              + "&after="
                              + after))
                  .timeout(REQUEST_TIMEOUT)
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(HttpURLConnection.HTTP_OK, resp.statusCode(), resp.body());
      JsonNode items = Json.LENIENT.readTree(resp.body());
      assertTrue(items.size() <= page, resp.body());
      for (JsonNode p : items) {
        seen.add(p.get("procId").asLong());
      }
      Optional<String> next = resp.headers().firstValue(Paging.NEXT_AFTER_HEADER);
      if (next.isEmpty()) {
        break;
      }
      assertEquals(page, items.size(), "a page with a next page is full");
      after = Long.parseLong(next.get());
      assertEquals(seen.get(seen.size() - 1), after);
    }
    Set<Long> distinct = new HashSet<>(seen);
    assertEquals(seen.size(), distinct.size(), "a procedure on two pages: " + seen);
    assertTrue(seen.size() >= total, seen + " against " + total);
    List<Long> sorted = new ArrayList<>(seen);
    sorted.sort(null);
    assertEquals(sorted, seen, "pages in id order");

    assertEquals(
        Paging.DEFAULT_PAGE >= total ? total : Paging.DEFAULT_PAGE,
        http.get("/api/procedures").json().size());
    http.get("/api/procedures?limit=0")
        .assertError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST);
    http.get("/api/procedures?after=-1")
        .assertError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST);
    http.get("/api/procedures?limit=" + (Paging.MAX_PAGE + 1))
        .assertError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST);
  }
}
