package dev.baton.confignode.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.faults.StateHolds;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.JsonExchange;
import dev.baton.confignode.http.Paging;
import dev.baton.confignode.metrics.NodeMetrics;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.confignode.procedures.ConfigNodeProcedures;
import dev.baton.confignode.procedures.ProcedureLimits;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /api/procedures}: submit (any node: the submission is a log entry), list with filters, get
 * one, abort. Reads are linearizable; the leader adds each live procedure's wait reason.
 */
final class ProcedureRoutes implements AdminRoutes {
  /** Largest request body accepted. */
  static final int MAX_BODY_BYTES = 64 << 10;

  static final String PATH = "procedures";

  /** The operator action of an abort, as metrics count it. */
  static final String ABORT = "abort";

  /** A submission: a registered type, its arguments, and an optional nonce for safe retries. */
  record SubmitRequest(String type, JsonNode args, NonceBody nonce) {}

  record NonceBody(long group, long nonce) {}

  private final ProcedureNode<ConfigNodeEnv> node;
  private final StateHolds holds;
  private final ProcedureLimits limits;
  private final NodeMetrics metrics;

  ProcedureRoutes(
      ProcedureNode<ConfigNodeEnv> node,
      StateHolds holds,
      ProcedureLimits limits,
      NodeMetrics metrics) {
    this.node = node;
    this.holds = holds;
    this.limits = limits;
    this.metrics = metrics;
  }

  @Override
  public List<Endpoint> endpoints() {
    return List.of(
        Endpoint.post(
            "/api/" + PATH,
            "submit a procedure {type, args?, nonce?: {group, nonce}} → {procId}",
            this::submit),
        Endpoint.get(
                "/api/" + PATH,
                "one page of the procedures that match the filters, in id order",
                this::list)
            .withQuery(
                "limit: page size, 1 to " + Paging.MAX_PAGE,
                "after: only ids above this one (the previous page's "
                    + Paging.NEXT_AFTER_HEADER
                    + " header)",
                "state: only procedures in this state",
                "type: only procedures of this type"),
        Endpoint.get(
            "/api/" + PATH + "/{id}",
            "one procedure, with its wait reason while it waits",
            req -> get(procId(req.segment(1)))),
        Endpoint.post(
            "/api/" + PATH + "/{id}/abort", "ask to abort a procedure → {aborted}", this::abort));
  }

  private Map<String, Object> abort(AdminRequest req) throws HttpError, InterruptedException {
    long id = procId(req.segment(1));
    req.target("procedure " + id);
    get(id); // an unknown id is a 404, like GET; a known one answers aborted true|false
    boolean aborted = ClusterCalls.await(node.abort(id));
    metrics.operatorAction(ABORT, aborted ? NodeMetrics.DONE : NodeMetrics.REFUSED);
    return Map.of("aborted", aborted);
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
   * The view, with the wait reason when this node's executor knows it, or the fault hold it waits
   * at on this node.
   */
  private ProcedureView view(ProcedureInfo i) {
    Optional<ProcedureExecutor<ConfigNodeEnv>> executor = node.executor();
    String reason =
        i.finished() || executor.isEmpty()
            ? null
            : holds
                .heldAt(i.procId())
                .map(FaultRoutes::describe)
                .or(() -> executor.get().waitReason(i.procId()))
                .orElse(null);
    return ProcedureView.of(i, reason);
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
