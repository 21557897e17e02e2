package dev.baton.confignode.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.faults.StateHolds;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.JsonExchange;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.confignode.procedures.ConfigNodeProcedures;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
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

  /** A submission: a registered type, its arguments, and an optional nonce for safe retries. */
  record SubmitRequest(String type, JsonNode args, NonceBody nonce) {}

  record NonceBody(long group, long nonce) {}

  private final ProcedureNode<ConfigNodeEnv> node;
  private final StateHolds holds;

  ProcedureRoutes(ProcedureNode<ConfigNodeEnv> node, StateHolds holds) {
    this.node = node;
    this.holds = holds;
  }

  @Override
  public Optional<Object> route(AdminRequest req)
      throws HttpError, IOException, InterruptedException {
    if (req.isApi(PATH)) {
      if (req.method().equals("POST")) {
        return Optional.of(submit(req));
      }
      req.requireMethod("GET");
      return Optional.of(list(req.query()));
    }
    if (req.isApi(PATH, null)) {
      req.requireMethod("GET");
      return Optional.of(get(procId(req.segment(1))));
    }
    if (req.isApi(PATH, null, "abort")) {
      req.requireMethod("POST");
      long id = procId(req.segment(1));
      get(id); // an unknown id is a 404, like GET; a known one answers aborted true|false
      return Optional.of(Map.of("aborted", ClusterCalls.await(node.abort(id))));
    }
    return Optional.empty();
  }

  private Map<String, Object> submit(AdminRequest req)
      throws HttpError, IOException, InterruptedException {
    SubmitRequest body =
        JsonExchange.parse(
            JsonExchange.readBody(req.exchange(), MAX_BODY_BYTES), SubmitRequest.class);
    if (body.type() == null) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST,
          HttpErrors.INVALID_REQUEST,
          "missing required field 'type'; known types: " + ConfigNodeProcedures.registry().types());
    }
    Procedure<ConfigNodeEnv> proc;
    try {
      proc = ConfigNodeProcedures.create(body.type(), body.args());
    } catch (IllegalArgumentException e) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST, e.getMessage());
    }
    NonceKey nonce =
        body.nonce() == null ? null : new NonceKey(body.nonce().group(), body.nonce().nonce());
    long id = ClusterCalls.await(node.submit(proc, nonce));
    return Map.of("procId", id);
  }

  private List<ProcedureView> list(Map<String, String> query)
      throws HttpError, InterruptedException {
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
    List<ProcedureView> out = new ArrayList<>();
    for (ProcedureInfo i : ClusterCalls.await(node.list())) {
      if ((state == null || i.state() == state) && (type == null || type.equals(i.type()))) {
        out.add(view(i));
      }
    }
    return out;
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
