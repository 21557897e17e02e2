package dev.baton.confignode.admin;

import dev.baton.confignode.faults.StateHolds;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.JsonExchange;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.consensus.ProcedureNode;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /api/faults/hold} of a node started with {@code --faults} (for drills): {@code POST {type,
 * state}} holds procedures of that type before that state's step on this node only ({@link
 * StateHolds}); {@code DELETE} releases every hold; {@code GET} lists the holds and the procedures
 * waiting at them. On a node without the flag every {@code /api/faults} path is a 404 saying so.
 */
public final class FaultRoutes implements AdminRoutes {
  static final String PATH = "faults";
  static final String HOLD = "hold";

  /** Largest request body accepted. */
  static final int MAX_BODY_BYTES = 4 << 10;

  /** A hold to set: a procedure type and one of its state names. */
  record HoldRequest(String type, String state) {}

  private final ProcedureNode<ConfigNodeEnv> node;
  private final StateHolds holds;

  public FaultRoutes(ProcedureNode<ConfigNodeEnv> node, StateHolds holds) {
    this.node = node;
    this.holds = holds;
  }

  @Override
  public List<Endpoint> endpoints() {
    String path = "/api/" + PATH + "/" + HOLD;
    return List.of(
        Endpoint.get(path, "(--faults) the holds and the procedures held on this node", this::list),
        Endpoint.post(
            path,
            "(--faults) hold procedures of {type} before {state}'s step on this node",
            this::hold),
        Endpoint.delete(path, "(--faults) release every hold of this node", this::release));
  }

  private Map<String, Object> list(AdminRequest req) throws HttpError {
    requireEnabled();
    return state();
  }

  private Map<String, Object> hold(AdminRequest req) throws HttpError, IOException {
    requireEnabled();
    HoldRequest body = JsonExchange.parse(req.body(MAX_BODY_BYTES), HoldRequest.class);
    if (body.type() == null || body.state() == null) {
      throw invalid(
          "a hold needs 'type' and 'state', e.g. {\"type\":\"RemoveDataNode\","
              + "\"state\":\"MARK_REMOVING\"}");
    }
    req.target("hold " + body.type() + ":" + body.state());
    try {
      holds.hold(body.type(), body.state());
    } catch (IllegalArgumentException e) {
      throw invalid(e.getMessage());
    }
    return state();
  }

  private Map<String, Object> release(AdminRequest req) throws HttpError {
    requireEnabled();
    req.target("every hold");
    int released = holds.releaseAll();
    Map<String, Object> out = state();
    out.put("released", released);
    return out;
  }

  private void requireEnabled() throws HttpError {
    if (!holds.isEnabled()) {
      throw new HttpError(
          HttpURLConnection.HTTP_NOT_FOUND,
          HttpErrors.NOT_FOUND,
          "fault routes are off on node " + node.nodeId() + "; start it with --faults");
    }
  }

  /** The wait reason of a procedure held at {@code h}. */
  static String describe(StateHolds.Held h) {
    return "held by a fault hold before state " + h.state() + " (DELETE /api/faults/hold frees it)";
  }

  private Map<String, Object> state() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("nodeId", node.nodeId());
    out.put("holds", holds.holds());
    out.put("held", holds.held());
    return out;
  }

  private static HttpError invalid(String message) {
    return new HttpError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST, message);
  }
}
