package dev.baton.confignode.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.ProcedureExecutor;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * {@code GET /api/locks}: the lock table of the leader's executor, every held or awaited lock with
 * its holders and its wait queue in order ({@link dev.baton.procedure.scheduler.LockInfo}).
 *
 * <p>Locks live only in the leader's memory (recovery rebuilds them each term), so the leader
 * answers from its executor; a follower forwards the request to the admin API address the leader
 * published for its term (the node's leader admin publisher) and returns the leader's answer
 * unchanged; the request carries the caller's Authorization header, so the leader checks the
 * caller. While there is no leader, the leader is still recovering, or it has not published its
 * address yet, the answer is a 503 the client may retry.
 */
final class LockRoutes implements AdminRoutes {
  static final String PATH = "locks";

  private final ProcedureNode<ConfigNodeEnv> node;
  private final ClusterMetadata metadata;

  /** The client of the last leader forwarded to, and its address; guarded by this. */
  private NodeApiClient forwarder;

  private String forwardedTo;

  /** The trust of the leader's certificate when the nodes serve HTTPS. */
  private final Optional<SSLContext> tls;

  LockRoutes(
      ProcedureNode<ConfigNodeEnv> node, ClusterMetadata metadata, Optional<SSLContext> tls) {
    this.node = node;
    this.metadata = metadata;
    this.tls = tls;
  }

  @Override
  public List<Endpoint> endpoints() {
    return List.of(
        Endpoint.get(
            "/api/" + PATH,
            "the leader's lock table: every held or awaited lock, holders and waiters in order",
            this::locks));
  }

  private Object locks(AdminRequest req) throws HttpError, InterruptedException {
    Optional<ProcedureExecutor<ConfigNodeEnv>> executor = node.executor();
    if (executor.isPresent()) {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("nodeId", node.nodeId());
      out.put("term", node.term());
      out.put("locks", executor.get().locks());
      return out;
    }
    return forwardToLeader(req);
  }

  private JsonNode forwardToLeader(AdminRequest req) throws HttpError, InterruptedException {
    String leader = node.leaderId().orElse(null);
    if (leader == null) {
      throw ClusterCalls.unavailable("no leader now; the lock table lives in the leader");
    }
    if (leader.equals(node.nodeId())) {
      throw ClusterCalls.unavailable(
          "this node leads term " + node.term() + " but its executor is still recovering");
    }
    Optional<ClusterMetadata.LeaderAdmin> published = metadata.local().leaderAdmin();
    if (published.isEmpty() || !published.get().nodeId().equals(leader)) {
      throw ClusterCalls.unavailable(
          "leader " + leader + " has not published its admin API address yet; retry");
    }
    String address = published.get().address();
    try {
      // the caller's own credentials: the leader decides what the caller may see, not this node
      return forwarder(address)
          .withAuthorization(req.authorization())
          .call(address, "GET", "/api/" + PATH, null);
    } catch (NodeApiClient.ApiException e) {
      int status = e.status() == 0 ? HttpURLConnection.HTTP_UNAVAILABLE : e.status();
      String error = e.status() == 0 || e.error().isEmpty() ? ClusterCalls.UNAVAILABLE : e.error();
      throw new HttpError(
          status, error, "forwarding to leader " + leader + " failed: " + e.getMessage());
    } catch (IOException e) {
      throw ClusterCalls.unavailable(
          "forwarding to leader " + leader + " at " + address + " failed: " + e.getMessage());
    }
  }

  private synchronized NodeApiClient forwarder(String address) {
    if (!address.equals(forwardedTo)) {
      NodeApiClient client = new NodeApiClient(List.of(address));
      forwarder = tls.map(client::withTls).orElse(client);
      forwardedTo = address;
    }
    return forwarder;
  }
}
