package dev.baton.confignode.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.baton.confignode.faults.StateHolds;
import dev.baton.confignode.http.ErrorReply;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.JsonExchange;
import dev.baton.confignode.http.LoopbackHttpServer;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.confignode.procedures.ProcedureLimits;
import dev.baton.consensus.ProcedureNode;
import java.io.IOException;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP admin API of a ConfigNode, JSON in and out. Any node answers: submissions and aborts go
 * through the replicated log to the leader, reads are linearizable, the lock table comes from the
 * leader. Bad input gets a 4xx JSON error; an unavailable cluster a 503; never a stack trace.
 *
 * <p>Endpoints come in groups ({@link AdminRoutes}), asked in the order of {@link #routes}; a new
 * group is one {@link #addRoutes} call.
 */
public final class AdminServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);

  /** Threads serving requests. */
  static final int HTTP_THREADS = 8;

  private final ProcedureNode<ConfigNodeEnv> node;
  private final List<AdminRoutes> routes = new ArrayList<>();
  private HttpServer server;
  private ExecutorService threads;

  public AdminServer(
      ProcedureNode<ConfigNodeEnv> node,
      ClusterMetadata metadata,
      StateHolds holds,
      ProcedureLimits limits) {
    this.node = node;
    routes.add(new ClusterRoutes(node));
    routes.add(new ProcedureRoutes(node, holds, limits));
    routes.add(new LockRoutes(node, metadata));
  }

  /** Adds a group of endpoints, asked after the ones before it; call before {@link #start}. */
  public AdminServer addRoutes(AdminRoutes group) {
    routes.add(group);
    return this;
  }

  public void start(int port) throws IOException {
    server = LoopbackHttpServer.create(port, 0);
    threads = Executors.newFixedThreadPool(HTTP_THREADS);
    server.setExecutor(threads);
    server.createContext("/", this::handle);
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    if (server != null) {
      server.stop(0);
      threads.shutdownNow();
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      AdminRequest req = AdminRequest.of(exchange);
      try {
        if (req.uri().getPath().equals(MetricsText.PATH)) {
          req.requireMethod("GET");
          sendText(exchange, MetricsText.of(node));
          return;
        }
        JsonExchange.send(exchange, HttpURLConnection.HTTP_OK, route(req));
      } catch (HttpError e) {
        JsonExchange.send(exchange, e.status(), e.reply());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        JsonExchange.send(
            exchange,
            HttpURLConnection.HTTP_UNAVAILABLE,
            new ErrorReply(ClusterCalls.UNAVAILABLE, "the node is shutting down"));
      } catch (RuntimeException e) {
        String reference = HttpErrors.newReference();
        LOG.error(
            "admin API failed on {} {} (reference {})", req.method(), req.uri(), reference, e);
        JsonExchange.send(
            exchange,
            HttpURLConnection.HTTP_INTERNAL_ERROR,
            new ErrorReply(HttpErrors.INTERNAL, HttpErrors.internalMessage(reference)));
      }
    }
  }

  private Object route(AdminRequest req) throws HttpError, IOException, InterruptedException {
    for (AdminRoutes group : routes) {
      Optional<Object> answer = group.route(req);
      if (answer.isPresent()) {
        return answer.get();
      }
    }
    throw req.notFound();
  }

  private static void sendText(HttpExchange exchange, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", MetricsText.CONTENT_TYPE);
    exchange.sendResponseHeaders(HttpURLConnection.HTTP_OK, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
