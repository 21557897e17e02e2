package dev.baton.confignode.admin;

import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.JsonExchange;
import dev.baton.confignode.procedures.AddConfigNode;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.confignode.procedures.ConfigNodeProcedures;
import dev.baton.confignode.procedures.RemoveConfigNode;
import dev.baton.confignode.procedures.ReplaceConfigNode;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.consensus.Membership;
import dev.baton.consensus.NodeRole;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.Procedure;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /api/membership}: the ConfigNode membership changes, each submitted as its procedure (role
 * admin, as every path under it but the GET): {@code POST /api/membership/add {id, address}},
 * {@code POST /api/membership/remove {id}}, {@code POST /api/membership/replace {oldId, newId,
 * address}}, each with an optional {@code nonce: {group, nonce}} for safe retries and answering
 * {@code {procId}}; {@code POST /api/membership/transfer-leadership {to}} asked of the leader hands
 * its leadership to the member {@code to} (a rolling restart restarts the leader last, after this;
 * not a procedure: it changes no state, and a repeat is harmless); {@code GET /api/membership}
 * lists the group's members as this node sees them.
 */
final class MembershipRoutes implements AdminRoutes {
  static final String PATH = "membership";

  /** Largest request body accepted. */
  static final int MAX_BODY_BYTES = 4 << 10;

  /** {@code POST /api/membership/add}: the new member's id and Raft address. */
  record AddRequest(String id, String address, ProcedureRoutes.NonceBody nonce) {}

  /** {@code POST /api/membership/remove}: the member's id. */
  record RemoveRequest(String id, ProcedureRoutes.NonceBody nonce) {}

  /** {@code POST /api/membership/replace}: the member to remove, the new id and its address. */
  record ReplaceRequest(
      String oldId, String newId, String address, ProcedureRoutes.NonceBody nonce) {}

  /** {@code POST /api/membership/transfer-leadership}: the member to hand leadership to. */
  record TransferRequest(String to) {}

  /** The error code of a transfer asked of a node that does not lead (409). */
  static final String NOT_LEADER = "not_leader";

  /** The error code of a transfer Ratis refused or did not finish in time (409). */
  static final String TRANSFER_FAILED = "transfer_failed";

  private final ProcedureNode<ConfigNodeEnv> node;

  MembershipRoutes(ProcedureNode<ConfigNodeEnv> node) {
    this.node = node;
  }

  @Override
  public List<Endpoint> endpoints() {
    return List.of(
        Endpoint.get(
            "/api/" + PATH,
            "the Raft group's members as this node sees them",
            req -> Map.of("nodeId", node.nodeId(), "members", node.membership().members())),
        Endpoint.post(
            "/api/" + PATH + "/add",
            "add a ConfigNode {id, address, nonce?} (started with --join) → {procId}",
            req -> change(req, "add")),
        Endpoint.post(
            "/api/" + PATH + "/remove",
            "remove a ConfigNode {id, nonce?} → {procId}",
            req -> change(req, "remove")),
        Endpoint.post(
            "/api/" + PATH + "/replace",
            "replace a ConfigNode {oldId, newId, address, nonce?}: remove the old, add the new"
                + " → {procId}",
            req -> change(req, "replace")),
        Endpoint.post(
            "/api/" + PATH + "/transfer-leadership",
            "hand this leader's leadership to the member {to} → {from, to, term}",
            this::transfer));
  }

  private Map<String, Object> transfer(AdminRequest req)
      throws HttpError, IOException, InterruptedException {
    TransferRequest r = JsonExchange.parse(req.body(MAX_BODY_BYTES), TransferRequest.class);
    if (r.to() == null || r.to().isBlank()) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST, "missing 'to'");
    }
    req.target("leadership to " + r.to());
    if (node.role() != NodeRole.LEADER_RUNNING) {
      throw new HttpError(
          HttpURLConnection.HTTP_CONFLICT,
          NOT_LEADER,
          "node "
              + node.nodeId()
              + " does not lead (it is "
              + node.role()
              + ", the leader is "
              + node.leaderId().orElse("unknown")
              + "): ask the leader");
    }
    List<String> others =
        node.membership().members().stream()
            .map(Membership.Member::id)
            .filter(id -> !id.equals(node.nodeId()))
            .toList();
    if (!others.contains(r.to())) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST,
          HttpErrors.INVALID_REQUEST,
          "'" + r.to() + "' is not another member of the group " + others);
    }
    long term = node.term();
    try {
      node.membership().transferLeadership(r.to(), ConfigNodeWaits.LEADERSHIP_TRANSFER_WAIT);
    } catch (IOException e) {
      throw new HttpError(HttpURLConnection.HTTP_CONFLICT, TRANSFER_FAILED, e.getMessage());
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("from", node.nodeId());
    out.put("to", r.to());
    out.put("term", term);
    return out;
  }

  private Map<String, Object> change(AdminRequest req, String action)
      throws HttpError, IOException, InterruptedException {
    byte[] body = req.body(MAX_BODY_BYTES);
    Procedure<ConfigNodeEnv> proc;
    ProcedureRoutes.NonceBody nonce;
    try {
      switch (action) {
        case "add" -> {
          AddRequest r = JsonExchange.parse(body, AddRequest.class);
          proc = new AddConfigNode(r.id(), r.address());
          nonce = r.nonce();
        }
        case "remove" -> {
          RemoveRequest r = JsonExchange.parse(body, RemoveRequest.class);
          proc = new RemoveConfigNode(r.id());
          nonce = r.nonce();
        }
        default -> {
          ReplaceRequest r = JsonExchange.parse(body, ReplaceRequest.class);
          proc = new ReplaceConfigNode(r.oldId(), r.newId(), r.address());
          nonce = r.nonce();
        }
      }
    } catch (IllegalArgumentException e) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST, e.getMessage());
    }
    req.target(proc.getClass().getSimpleName());
    long id = ClusterCalls.await(node.submit(proc, nonceKey(nonce)));
    req.target("procedure " + id + " " + proc.getClass().getSimpleName());
    return Map.of("procId", id);
  }

  private static NonceKey nonceKey(ProcedureRoutes.NonceBody body) throws HttpError {
    if (body == null) {
      return null;
    }
    if (body.group() == ConfigNodeProcedures.NODE_NONCE_GROUP) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST,
          HttpErrors.INVALID_REQUEST,
          "nonce group " + body.group() + " is reserved for the node's own submissions");
    }
    return new NonceKey(body.group(), body.nonce());
  }
}
