package dev.baton.confignode.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.http.HttpReply;
import dev.baton.confignode.http.HttpService;
import dev.baton.confignode.http.JettyHttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The admin API's connections with as many long polls waiting as a node keeps ({@link
 * ProcedureRoutes#MAX_WAITING}), each on its own connection as an HTTP/1.1 client holds them: every
 * one reaches the service, and a new client is still served at once. The server runs the admin
 * API's default limits and its long poll exemption, with a service that holds every long poll.
 */
@Timeout(120)
class AdminConnectionsTest {
  /** How long the long polls may take to arrive, and a new request to be answered. */
  private static final Duration QUICK = Duration.ofSeconds(30);

  private static final String LONG_POLL =
      "/api/procedures/1?" + ProcedureRoutes.WAIT_FOR + "=finished";

  private final CompletableFuture<HttpReply> release = new CompletableFuture<>();
  private final CountDownLatch arrived = new CountDownLatch(ProcedureRoutes.MAX_WAITING);
  private final List<Socket> sockets = new ArrayList<>();
  private JettyHttpServer server;

  @AfterEach
  void stop() throws IOException {
    release.complete(HttpReply.json(HttpURLConnection.HTTP_OK, Map.of()));
    for (Socket s : sockets) {
      s.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /**
   * Open files this test needs beyond the JVM's own: both ends of every long poll's connection, the
   * new client's, and the server's.
   */
  private static final long OPEN_FILES_NEEDED = 2L * ProcedureRoutes.MAX_WAITING + 64;

  @Test
  void aNodeFullOfLongPollsStillServesNewClients() throws Exception {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.UnixOperatingSystemMXBean os) {
      long max = os.getMaxFileDescriptorCount();
      long free = max - os.getOpenFileDescriptorCount();
      assertTrue(
          free >= OPEN_FILES_NEEDED,
          "this test holds "
              + OPEN_FILES_NEEDED
              + " open files and "
              + free
              + " are free (limit "
              + max
              + "): raise the limit (ulimit -n; ./test raises it)");
    }
    server =
        JettyHttpServer.builder(
                "connections",
                HttpService.async(
                    call -> {
                      if (call.path().startsWith("/api/procedures/")) {
                        arrived.countDown();
                        return release;
                      }
                      return CompletableFuture.completedFuture(
                          HttpReply.json(HttpURLConnection.HTTP_OK, Map.of("path", call.path())));
                    }))
            .bind("127.0.0.1", 0)
            .limits(AdminApiSettings.LOOPBACK.limits())
            .unlimitedWithParameter(ProcedureRoutes.WAIT_FOR)
            .start();

    byte[] request =
        ("GET " + LONG_POLL + " HTTP/1.1\r\nHost: 127.0.0.1:" + server.port() + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < ProcedureRoutes.MAX_WAITING; i++) {
      Socket s = new Socket("127.0.0.1", server.port());
      sockets.add(s);
      OutputStream out = s.getOutputStream();
      out.write(request);
      out.flush();
    }
    assertTrue(
        arrived.await(QUICK.toMillis(), TimeUnit.MILLISECONDS),
        "long polls that reached the service: "
            + (ProcedureRoutes.MAX_WAITING - arrived.getCount())
            + " of "
            + ProcedureRoutes.MAX_WAITING);

    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpResponse<String> fresh =
        client.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/api/cluster"))
                .timeout(QUICK)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(HttpURLConnection.HTTP_OK, fresh.statusCode(), fresh.body());
  }
}
