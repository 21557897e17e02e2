package dev.baton.confignode.admin;

import dev.baton.confignode.auth.AccessControl;
import dev.baton.confignode.auth.AuditLog;
import dev.baton.confignode.auth.Principal;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.events.EventLog;
import dev.baton.confignode.faults.StateHolds;
import dev.baton.confignode.http.AllowedHosts;
import dev.baton.confignode.http.ErrorReply;
import dev.baton.confignode.http.HttpCall;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.HttpReply;
import dev.baton.confignode.http.HttpService;
import dev.baton.confignode.http.JettyHttpServer;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.http.TlsIdentity;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.metrics.NodeMetrics;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.confignode.procedures.ProcedureLimits;
import dev.baton.consensus.ProcedureNode;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP admin API of a ConfigNode, JSON in and out. Any node answers: submissions and aborts go
 * through the replicated log to the leader, reads are linearizable, the lock table comes from the
 * leader. Bad input gets a 4xx JSON error; an unavailable cluster a 503; never a stack trace.
 *
 * <p>Every request first passes the {@link AdminGate} (Host, token and role, JSON body), which also
 * writes the audit log. Endpoints come in groups ({@link AdminRoutes}) whose endpoints fill one
 * {@link RouteTable}; a new group is one {@link #addRoutes} call. The table also serves {@code GET
 * /metrics} (Prometheus text, {@link NodeMetrics}) and {@code GET /api/openapi.json} (the OpenAPI
 * document of the table itself). The server ({@link JettyHttpServer}) bounds threads, connections,
 * waiting requests and header time.
 *
 * <p>{@code GET /api/events} streams procedure changes ({@link EventRoutes}); the operator's
 * console ({@link ConsoleFiles}) is served at {@code /console/}: its files pass only the Host check
 * (they hold no data), every call the page makes needs a token as any other request.
 */
public final class AdminServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);

  private final ProcedureNode<ConfigNodeEnv> node;
  private final AdminApiSettings settings;
  private final AdminGate gate;
  private final RouteTable routes = new RouteTable();
  private final LeaderForward leader;
  private JettyHttpServer server;

  public AdminServer(
      ProcedureNode<ConfigNodeEnv> node,
      ClusterMetadata metadata,
      StateHolds holds,
      ProcedureLimits limits,
      AdminApiSettings settings,
      AuditLog audit,
      NodeMetrics metrics,
      EventLog events) {
    this.node = node;
    this.settings = settings;
    this.gate =
        new AdminGate(
            AllowedHosts.of(settings.bindHost(), settings.hostNames()),
            settings.tokens().map(AccessControl::withTokens).orElseGet(AccessControl::open),
            audit);
    routes.add(
        () ->
            List.of(
                Endpoint.get(
                        "/metrics",
                        "this node's metrics in the Prometheus text format",
                        req ->
                            new HttpReply(
                                HttpURLConnection.HTTP_OK, metrics.contentType(), metrics.scrape()))
                    .producing(metrics.contentType()),
                Endpoint.get(
                    OpenApiDocument.PATH,
                    "this document: the OpenAPI 3 description of the admin API",
                    req -> OpenApiDocument.of(routes.endpoints()))));
    this.leader = new LeaderForward(node, metadata, settings.tls().map(TlsIdentity::trustContext));
    routes.add(new ClusterRoutes(node, leader));
    routes.add(new ProcedureRoutes(node, holds, limits, leader));
    routes.add(new ActionRoutes(node, metrics, leader));
    routes.add(new AuditRoutes(node));
    routes.add(new LockRoutes(node, leader));
    routes.add(new HistoryRoutes(node));
    routes.add(new MembershipRoutes(node));
    routes.add(new EventRoutes(events, node.nodeId()));
  }

  /** Every endpoint served, in routing order. */
  List<Endpoint> endpoints() {
    return routes.endpoints();
  }

  /** Adds a group of endpoints, asked after the ones before it; call before {@link #start}. */
  public AdminServer addRoutes(AdminRoutes group) {
    routes.add(group);
    return this;
  }

  public void start(int port) throws IOException {
    server =
        JettyHttpServer.builder("admin-" + node.nodeId(), HttpService.async(this::serve))
            .bind(settings.bindHost(), port)
            .limits(settings.limits())
            .tls(settings.tls())
            .unlimitedWithParameter(ProcedureRoutes.WAIT_FOR)
            .unlimitedRequest("POST", "/api/" + ProcedureRoutes.PATH)
            .unlimitedPath(EventRoutes.PATH)
            .start();
  }

  public int port() {
    return server.port();
  }

  /** {@code https} or {@code http}. */
  public String scheme() {
    return server.scheme();
  }

  @Override
  public void close() {
    if (server != null) {
      server.close();
    }
  }

  private CompletionStage<HttpReply> serve(HttpCall call) {
    if (ConsoleFiles.serves(call.path())) {
      try {
        gate.admitStatic(call);
      } catch (AdminGate.Refused r) {
        gate.record(
            call,
            Optional.empty(),
            Optional.empty(),
            true,
            r.error().status() + " " + r.error().reply().error());
        return CompletableFuture.completedFuture(HttpReply.error(r.error()));
      }
      return CompletableFuture.completedFuture(ConsoleFiles.answer(call));
    }
    Principal who;
    try {
      who = gate.admit(call);
    } catch (AdminGate.Refused r) {
      HttpError e = r.error();
      gate.record(
          call, r.principal(), Optional.empty(), true, e.status() + " " + e.reply().error());
      return CompletableFuture.completedFuture(HttpReply.error(e));
    }
    AdminRequest req = new AdminRequest(call, who);
    // a client that reached a follower learns where to go next time
    leader.leaderAddress().ifPresent(a -> call.setResponseHeader(NodeApiClient.LEADER_HEADER, a));
    return answer(req, call.executor())
        .thenApply(
            reply -> {
              gate.record(call, Optional.of(who), req.target(), false, result(reply));
              return reply;
            });
  }

  /**
   * The route's answer. One that comes later is built (and then audited and written) on {@code
   * pool}, not on the thread that completes it: that is a single thread of the node (Raft replies,
   * long-poll wake-ups) that every other waiting request shares. An {@link InlineAnswer} is the
   * exception: it is cheap to finish, so it is finished where it completes.
   */
  private CompletionStage<HttpReply> answer(AdminRequest req, Executor pool) {
    try {
      Object answer = routes.route(req);
      BiFunction<Object, Throwable, HttpReply> finish =
          (value, failure) -> failure == null ? reply(value) : failed(req, unwrap(failure));
      if (answer instanceof InlineAnswer inline) {
        return inline.stage().handle(finish);
      }
      if (answer instanceof CompletionStage<?> later) {
        CompletableFuture<?> stage = later.toCompletableFuture();
        return stage.isDone() ? stage.handle(finish) : stage.handleAsync(finish, pool);
      }
      return CompletableFuture.completedFuture(reply(answer));
    } catch (HttpError | InterruptedException | IOException | RuntimeException e) {
      return CompletableFuture.completedFuture(failed(req, e));
    }
  }

  /** An endpoint's answer: an {@link HttpReply} as it is, anything else as JSON. */
  private static HttpReply reply(Object answer) {
    return answer instanceof HttpReply reply
        ? reply
        : HttpReply.json(HttpURLConnection.HTTP_OK, answer);
  }

  /** The error answer for a route's failure: its own error, 503, 400 or a 500 with a reference. */
  private static HttpReply failed(AdminRequest req, Throwable e) {
    if (e instanceof HttpError error) {
      return HttpReply.error(error);
    }
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
      return HttpReply.json(
          HttpURLConnection.HTTP_UNAVAILABLE,
          new ErrorReply(ClusterCalls.UNAVAILABLE, "the node is shutting down"));
    }
    if (e instanceof IOException io) {
      return HttpReply.unreadable(io);
    }
    String reference = HttpErrors.newReference();
    LOG.error(
        "admin API failed on {} {} (reference {})", req.method(), req.pathText(), reference, e);
    return HttpReply.internal(reference);
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }

  /** The audit log's result of an answer: its status, and its error code if any. */
  private static String result(HttpReply reply) {
    if (reply.status() < HttpURLConnection.HTTP_BAD_REQUEST) {
      return Integer.toString(reply.status());
    }
    try {
      ErrorReply error = Json.LENIENT.readValue(reply.body(), ErrorReply.class);
      return reply.status() + " " + error.error();
    } catch (IOException e) {
      return Integer.toString(reply.status());
    }
  }
}
