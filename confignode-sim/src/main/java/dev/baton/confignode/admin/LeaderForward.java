package dev.baton.confignode.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.consensus.ProcedureNode;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * Asks the leader for what lives only in its executor's memory (the lock table, why a procedure
 * waits, the dry run of an operator action): a follower forwards the request (a GET, or a POST with
 * its JSON body) to the admin API address the leader published for its term and returns the
 * leader's answer unchanged (an error answer with the leader's status and code). The request
 * carries the caller's Authorization header, so the leader checks the caller. While there is no
 * leader, the leader is still recovering, or it has not published its address yet, the answer is a
 * 503 the client may retry.
 */
final class LeaderForward {
  private final ProcedureNode<ConfigNodeEnv> node;
  private final ClusterMetadata metadata;

  /** The trust of the leader's certificate when the nodes serve HTTPS. */
  private final Optional<SSLContext> tls;

  /** The client of the last leader forwarded to, and its address; guarded by this. */
  private NodeApiClient forwarder;

  private String forwardedTo;

  /** The leader's published address as last found in the metadata. */
  private volatile ClusterMetadata.LeaderAdmin lastPublished;

  LeaderForward(
      ProcedureNode<ConfigNodeEnv> node, ClusterMetadata metadata, Optional<SSLContext> tls) {
    this.node = node;
    this.metadata = metadata;
    this.tls = tls;
  }

  /**
   * The leader's answer to {@code GET path}; {@code what} names what lives in the leader, for the
   * messages ("the lock table").
   */
  JsonNode get(AdminRequest req, String path, String what) throws HttpError, InterruptedException {
    return forward(req, "GET", path, null, what);
  }

  /** The leader's answer to {@code POST path} with {@code body}; see {@link #get}. */
  JsonNode post(AdminRequest req, String path, JsonNode body, String what)
      throws HttpError, InterruptedException {
    return forward(req, "POST", path, body, what);
  }

  /**
   * Where the leader serves its admin API, when another node leads and has published it: what a
   * follower names in its answers ({@link NodeApiClient#LEADER_HEADER}).
   */
  Optional<String> leaderAddress() {
    Optional<String> leader = node.leaderId();
    if (leader.isEmpty() || leader.get().equals(node.nodeId())) {
      return Optional.empty();
    }
    ClusterMetadata.LeaderAdmin known = lastPublished;
    if (known == null || !known.nodeId().equals(leader.get())) {
      // the metadata is read again only when the leader changed since it was last found there
      known = metadata.local().leaderAdmin().orElse(null);
      if (known == null || !known.nodeId().equals(leader.get())) {
        return Optional.empty(); // the new leader has not published its address yet
      }
      lastPublished = known;
    }
    return Optional.of(known.address());
  }

  private JsonNode forward(AdminRequest req, String method, String path, JsonNode body, String what)
      throws HttpError, InterruptedException {
    String leader = node.leaderId().orElse(null);
    if (leader == null) {
      throw ClusterCalls.unavailable("no leader now; " + what + " lives in the leader");
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
          .call(address, method, path, body);
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
