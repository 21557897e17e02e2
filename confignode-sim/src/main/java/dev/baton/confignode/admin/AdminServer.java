package dev.baton.confignode.admin;

import dev.baton.confignode.auth.AccessControl;
import dev.baton.confignode.auth.AuditLog;
import dev.baton.confignode.auth.Principal;
import dev.baton.confignode.faults.StateHolds;
import dev.baton.confignode.http.AllowedHosts;
import dev.baton.confignode.http.ErrorReply;
import dev.baton.confignode.http.HttpCall;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.HttpReply;
import dev.baton.confignode.http.JettyHttpServer;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.http.TlsIdentity;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.confignode.procedures.ProcedureLimits;
import dev.baton.consensus.ProcedureNode;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP admin API of a ConfigNode, JSON in and out. Any node answers: submissions and aborts go
 * through the replicated log to the leader, reads are linearizable, the lock table comes from the
 * leader. Bad input gets a 4xx JSON error; an unavailable cluster a 503; never a stack trace.
 *
 * <p>Every request first passes the {@link AdminGate} (Host, token and role, JSON body), which also
 * writes the audit log. Endpoints come in groups ({@link AdminRoutes}), asked in the order of
 * {@link #routes}; a new group is one {@link #addRoutes} call. The server ({@link JettyHttpServer})
 * bounds threads, connections, waiting requests and header time.
 */
public final class AdminServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);

  private final ProcedureNode<ConfigNodeEnv> node;
  private final AdminApiSettings settings;
  private final AdminGate gate;
  private final List<AdminRoutes> routes = new ArrayList<>();
  private JettyHttpServer server;

  public AdminServer(
      ProcedureNode<ConfigNodeEnv> node,
      ClusterMetadata metadata,
      StateHolds holds,
      ProcedureLimits limits,
      AdminApiSettings settings,
      AuditLog audit) {
    this.node = node;
    this.settings = settings;
    this.gate =
        new AdminGate(
            AllowedHosts.of(settings.bindHost(), settings.hostNames()),
            settings.tokens().map(AccessControl::withTokens).orElseGet(AccessControl::open),
            audit);
    routes.add(new ClusterRoutes(node));
    routes.add(new ProcedureRoutes(node, holds, limits));
    routes.add(new LockRoutes(node, metadata, settings.tls().map(TlsIdentity::trustContext)));
    routes.add(new MembershipRoutes(node));
  }

  /** Adds a group of endpoints, asked after the ones before it; call before {@link #start}. */
  public AdminServer addRoutes(AdminRoutes group) {
    routes.add(group);
    return this;
  }

  public void start(int port) throws IOException {
    server =
        JettyHttpServer.builder("admin-" + node.nodeId(), this::serve)
            .bind(settings.bindHost(), port)
            .limits(settings.limits())
            .tls(settings.tls())
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

  private HttpReply serve(HttpCall call) {
    Principal who;
    try {
      who = gate.admit(call);
    } catch (AdminGate.Refused r) {
      HttpError e = r.error();
      gate.record(
          call, r.principal(), Optional.empty(), true, e.status() + " " + e.reply().error());
      return HttpReply.error(e);
    }
    AdminRequest req = new AdminRequest(call, who);
    HttpReply reply = answer(req);
    gate.record(call, Optional.of(who), req.target(), false, result(reply));
    return reply;
  }

  private HttpReply answer(AdminRequest req) {
    try {
      if (req.pathText().equals(MetricsText.PATH)) {
        req.requireMethod("GET");
        return HttpReply.text(
            HttpURLConnection.HTTP_OK, MetricsText.CONTENT_TYPE, MetricsText.of(node));
      }
      return HttpReply.json(HttpURLConnection.HTTP_OK, route(req));
    } catch (HttpError e) {
      return HttpReply.error(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return HttpReply.json(
          HttpURLConnection.HTTP_UNAVAILABLE,
          new ErrorReply(ClusterCalls.UNAVAILABLE, "the node is shutting down"));
    } catch (IOException e) {
      return HttpReply.unreadable(e);
    } catch (RuntimeException e) {
      String reference = HttpErrors.newReference();
      LOG.error(
          "admin API failed on {} {} (reference {})", req.method(), req.pathText(), reference, e);
      return HttpReply.internal(reference);
    }
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

  private Object route(AdminRequest req) throws HttpError, IOException, InterruptedException {
    for (AdminRoutes group : routes) {
      Optional<Object> answer = group.route(req);
      if (answer.isPresent()) {
        return answer.get();
      }
    }
    throw req.notFound();
  }
}
