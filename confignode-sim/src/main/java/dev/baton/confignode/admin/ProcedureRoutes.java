package dev.baton.confignode.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.faults.StateHolds;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.JsonExchange;
import dev.baton.confignode.http.Paging;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.confignode.procedures.ConfigNodeProcedures;
import dev.baton.confignode.procedures.ProcedureLimits;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.BlockedOn;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.WaitChain;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /api/procedures}: submit (any node: the submission is a log entry), list with filters, get
 * one, abort, and why one waits. Reads are linearizable; the leader adds what each live procedure
 * waits on ({@code blockedOn}) and its text ({@code waitReason}); a node without a running executor
 * while no executor runs anywhere (no leader, or it leads and still recovers) says so as {@code
 * notLeader}.
 *
 * <p>{@code GET /api/procedures/{id}/why} follows the waits from the procedure to the root cause
 * ({@link WaitChain}: lock holder, what that holder waits on, ...), each link typed, stopping at a
 * cycle. Waits live in the leader's executor, so a follower answers with the leader's view ({@link
 * LeaderForward}).
 */
final class ProcedureRoutes implements AdminRoutes {
  /** Largest request body accepted. */
  static final int MAX_BODY_BYTES = 64 << 10;

  static final String PATH = "procedures";

  /** A submission: a registered type, its arguments, and an optional nonce for safe retries. */
  record SubmitRequest(String type, JsonNode args, NonceBody nonce) {}

  record NonceBody(long group, long nonce) {}

  static final String WHY = "why";

  private final ProcedureNode<ConfigNodeEnv> node;
  private final StateHolds holds;
  private final ProcedureLimits limits;
  private final LeaderForward leader;

  ProcedureRoutes(
      ProcedureNode<ConfigNodeEnv> node,
      StateHolds holds,
      ProcedureLimits limits,
      LeaderForward leader) {
    this.node = node;
    this.holds = holds;
    this.limits = limits;
    this.leader = leader;
  }

  @Override
  public Optional<Object> route(AdminRequest req)
      throws HttpError, IOException, InterruptedException {
    if (req.isApi(PATH)) {
      if (req.method().equals("POST")) {
        return Optional.of(submit(req));
      }
      req.requireMethod("GET");
      return Optional.of(list(req));
    }
    if (req.isApi(PATH, null)) {
      req.requireMethod("GET");
      return Optional.of(get(procId(req.segment(1))));
    }
    if (req.isApi(PATH, null, WHY)) {
      req.requireMethod("GET");
      return Optional.of(why(req, procId(req.segment(1))));
    }
    if (req.isApi(PATH, null, "abort")) {
      req.requireMethod("POST");
      long id = procId(req.segment(1));
      req.target("procedure " + id);
      get(id); // an unknown id is a 404, like GET; a known one answers aborted true|false
      return Optional.of(Map.of("aborted", ClusterCalls.await(node.abort(id))));
    }
    return Optional.empty();
  }

  private Map<String, Object> submit(AdminRequest req)
      throws HttpError, IOException, InterruptedException {
    SubmitRequest body = JsonExchange.parse(req.body(MAX_BODY_BYTES), SubmitRequest.class);
    if (body.type() == null) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST,
          HttpErrors.INVALID_REQUEST,
          "missing required field 'type'; known types: " + ConfigNodeProcedures.registry().types());
    }
    req.target(body.type());
    Procedure<ConfigNodeEnv> proc;
    try {
      proc = ConfigNodeProcedures.create(body.type(), body.args(), limits);
    } catch (IllegalArgumentException e) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST, e.getMessage());
    }
    NonceKey nonce =
        body.nonce() == null ? null : new NonceKey(body.nonce().group(), body.nonce().nonce());
    if (nonce != null && nonce.group() == ConfigNodeProcedures.NODE_NONCE_GROUP) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST,
          HttpErrors.INVALID_REQUEST,
          "nonce group "
              + ConfigNodeProcedures.NODE_NONCE_GROUP
              + " is reserved for the node's own submissions; use another group");
    }
    long id = ClusterCalls.await(node.submit(proc, nonce));
    req.target("procedure " + id + " " + body.type());
    return Map.of("procId", id);
  }

  /**
   * One page of the procedures that match the filters, in id order: at most {@code limit} (default
   * {@value Paging#DEFAULT_PAGE}, at most {@value Paging#MAX_PAGE}) with ids above {@code after}
   * (default 0). When more match, the reply's {@value Paging#NEXT_AFTER_HEADER} header holds the
   * {@code after} of the next page.
   */
  private List<ProcedureView> list(AdminRequest req) throws HttpError, InterruptedException {
    Map<String, String> query = req.query();
    int limit = (int) queryNumber(query, "limit", Paging.DEFAULT_PAGE, 1, Paging.MAX_PAGE);
    long after = queryNumber(query, "after", 0, 0, Long.MAX_VALUE);
    ProcedureState state = null;
    if (query.containsKey("state")) {
      try {
        state = ProcedureState.valueOf(query.get("state"));
      } catch (IllegalArgumentException e) {
        throw new HttpError(
            HttpURLConnection.HTTP_BAD_REQUEST,
            HttpErrors.INVALID_REQUEST,
            "unknown state '"
                + query.get("state")
                + "'; states: "
                + List.of(ProcedureState.values()));
      }
    }
    String type = query.get("type");
    List<ProcedureInfo> all = new ArrayList<>(ClusterCalls.await(node.list()));
    all.sort(Comparator.comparingLong(ProcedureInfo::procId));
    List<ProcedureView> out = new ArrayList<>();
    for (ProcedureInfo i : all) {
      if (i.procId() <= after
          || (state != null && i.state() != state)
          || (type != null && !type.equals(i.type()))) {
        continue;
      }
      if (out.size() == limit) {
        req.setResponseHeader(
            Paging.NEXT_AFTER_HEADER, Long.toString(out.get(out.size() - 1).procId()));
        break;
      }
      out.add(view(i));
    }
    return out;
  }

  /** A whole-number query parameter within {@code min..max}, or {@code absent} if not given. */
  private static long queryNumber(
      Map<String, String> query, String name, long absent, long min, long max) throws HttpError {
    String value = query.get(name);
    if (value == null) {
      return absent;
    }
    try {
      long n = Long.parseLong(value);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new HttpError(
        HttpURLConnection.HTTP_BAD_REQUEST,
        HttpErrors.INVALID_REQUEST,
        "'"
            + name
            + "' must be a whole number from "
            + min
            + " to "
            + max
            + ", got '"
            + value
            + "'");
  }

  private ProcedureView get(long id) throws HttpError, InterruptedException {
    Optional<ProcedureInfo> info = ClusterCalls.await(node.getInfo(id));
    return view(
        info.orElseThrow(
            () ->
                new HttpError(
                    HttpURLConnection.HTTP_NOT_FOUND, HttpErrors.NOT_FOUND, "no procedure " + id)));
  }

  /**
   * The view, with what it waits on when this node's executor knows it (and the fault hold it waits
   * at on this node as its wait reason), or {@code notLeader} when no executor runs.
   */
  private ProcedureView view(ProcedureInfo i) {
    if (i.finished()) {
      return ProcedureView.of(i, null, null);
    }
    Optional<ProcedureExecutor<ConfigNodeEnv>> executor = node.executor();
    if (executor.isEmpty()) {
      return ProcedureView.of(i, null, noExecutor().orElse(null));
    }
    String reason =
        holds
            .heldAt(i.procId())
            .map(FaultRoutes::describe)
            .or(() -> executor.get().waitReason(i.procId()))
            .orElse(null);
    return ProcedureView.of(i, reason, executor.get().blockedOn(i.procId()).orElse(null));
  }

  /**
   * Why no executor runs procedures, when it runs nowhere: no leader, or this node leads and its
   * executor is still recovering. Empty on a follower of a leader (the leader knows the waits).
   */
  private Optional<BlockedOn> noExecutor() {
    String leaderId = node.leaderId().orElse(null);
    if (leaderId == null) {
      return Optional.of(new BlockedOn.NotLeader(node.nodeId(), null, "no leader now"));
    }
    if (leaderId.equals(node.nodeId())) {
      return Optional.of(
          new BlockedOn.NotLeader(
              node.nodeId(),
              leaderId,
              "it leads term " + node.term() + " and its executor is still recovering"));
    }
    return Optional.empty();
  }

  /** The chain of waits of procedure {@code id}, from the leader's executor. */
  private Object why(AdminRequest req, long id) throws HttpError, InterruptedException {
    req.target("procedure " + id);
    Optional<ProcedureExecutor<ConfigNodeEnv>> executor = node.executor();
    if (executor.isPresent()) {
      Optional<WaitChain> chain = executor.get().why(id);
      if (chain.isPresent()) {
        return WaitJson.chain(chain.get(), node.nodeId(), node.term());
      }
      ProcedureView known = get(id); // an unknown id is a 404
      String what = "procedure " + id + " is not live in the executor of the leader";
      WaitChain.Link only =
          new WaitChain.Link(id, known.type(), known.state(), known.step(), null, what);
      return WaitJson.chain(
          new WaitChain(id, List.of(only), false, what), node.nodeId(), node.term());
    }
    Optional<BlockedOn> none = noExecutor();
    if (none.isPresent()) {
      String what = none.get().describe(System.currentTimeMillis());
      WaitChain.Link only = new WaitChain.Link(id, null, null, null, none.get(), what);
      return WaitJson.chain(
          new WaitChain(id, List.of(only), false, what), node.nodeId(), node.term());
    }
    return leader.get(req, "/api/" + PATH + "/" + id + "/" + WHY, "why a procedure waits");
  }

  static long procId(String s) throws HttpError {
    try {
      long id = Long.parseLong(s);
      if (id > 0) {
        return id;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new HttpError(
        HttpURLConnection.HTTP_BAD_REQUEST,
        HttpErrors.INVALID_REQUEST,
        "procedure id must be a positive integer, got '" + s + "'");
  }
}
