package dev.baton.confignode.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.http.JsonExchange;
import dev.baton.confignode.metrics.NodeMetrics;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.consensus.AuditEntry;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.ActionPlan;
import dev.baton.procedure.OperatorAction;
import dev.baton.procedure.ProcedureExecutor;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code POST /api/procedures/{id}/bypass|force-fail|retry-now} with {@code {reason, dryRun?,
 * recursive?}}: an operator's action on a live procedure ({@link OperatorAction}); {@code POST
 * /api/procedures/{id}/abort} with the reason optional (see {@link #abort}).
 *
 * <ul>
 *   <li>A missing or blank {@code reason} is a 400, {@code recursive} on another action than a
 *       bypass too; an unknown procedure a 404 (read linearizably on this node).
 *   <li>{@code dryRun: true} answers the {@link ActionPlan} of the leader's executor (states left,
 *       locks released, children affected, effect) and changes nothing. The plan lives in the
 *       leader, so a follower forwards the POST to it with the caller's credentials ({@link
 *       LeaderForward}); a plan the executor refuses is a 409 {@value #REFUSED} with the refusal.
 *   <li>Otherwise the action is a log entry ({@link ProcedureNode#act}) carrying the caller's
 *       principal and the reason, recorded in the replicated audit trail ({@code GET /api/audit});
 *       the answer is its {@link AuditEntry}, or a 409 {@value #REFUSED} with the executor's
 *       refusal (a finished procedure, a bypass of one with unfinished children without {@code
 *       recursive}...). Each is counted in {@link NodeMetrics#operatorAction}.
 * </ul>
 */
final class ActionRoutes implements AdminRoutes {
  /** The error code of a refused action, 409. */
  static final String REFUSED = "refused";

  /** Largest request body accepted. */
  static final int MAX_BODY_BYTES = 16 << 10;

  /**
   * An action's request.
   *
   * @param reason why the operator acts, required
   * @param dryRun only answer what the action would change
   * @param recursive for a bypass: the procedure's unfinished descendants too
   */
  record ActionRequest(String reason, Boolean dryRun, Boolean recursive) {
    boolean dry() {
      return Boolean.TRUE.equals(dryRun);
    }

    boolean deep() {
      return Boolean.TRUE.equals(recursive);
    }
  }

  /** An abort's request when it came without a body. */
  private static final ActionRequest NO_BODY = new ActionRequest(null, null, null);

  /** The field of an abort's answer that says whether the procedure agreed. */
  static final String ABORTED = "aborted";

  private final ProcedureNode<ConfigNodeEnv> node;
  private final NodeMetrics metrics;
  private final LeaderForward leader;

  ActionRoutes(ProcedureNode<ConfigNodeEnv> node, NodeMetrics metrics, LeaderForward leader) {
    this.node = node;
    this.metrics = metrics;
    this.leader = leader;
  }

  @Override
  public List<Endpoint> endpoints() {
    List<Endpoint> out = new ArrayList<>();
    out.add(
        Endpoint.post(
            "/api/" + ProcedureRoutes.PATH + "/{id}/" + OperatorAction.ABORT.label(),
            summary(OperatorAction.ABORT)
                + "; body {reason?, dryRun?} or none → {aborted} (with a reason also the audit"
                + " entry), or with dryRun the plan (409 when refused)",
            this::abort));
    for (OperatorAction action : OperatorAction.values()) {
      if (action == OperatorAction.ABORT) {
        continue;
      }
      out.add(
          Endpoint.post(
              "/api/" + ProcedureRoutes.PATH + "/{id}/" + action.label(),
              summary(action)
                  + "; body {reason, dryRun?"
                  + (action == OperatorAction.BYPASS ? ", recursive?" : "")
                  + "} → the audit entry, or with dryRun the plan (409 when refused)",
              req -> act(req, action)));
    }
    return out;
  }

  private static String summary(OperatorAction action) {
    return switch (action) {
      case ABORT -> "ask a procedure to abort: if it agrees now, its tree rolls back";
      case FORCE_FAIL -> "fail a live procedure now: its tree rolls back";
      case BYPASS ->
          "finish a stuck procedure as SUCCESS without its remaining steps, releasing its locks";
      case RETRY_NOW -> "end a procedure's timed wait or retry backoff now";
    };
  }

  private Object act(AdminRequest req, OperatorAction action)
      throws HttpError, IOException, InterruptedException {
    long id = ProcedureRoutes.procId(req.segment(1));
    req.target("procedure " + id + " " + action.label());
    byte[] raw = req.body(MAX_BODY_BYTES);
    ActionRequest body = JsonExchange.parse(raw, ActionRequest.class);
    if (body.reason() == null || body.reason().isBlank()) {
      throw QueryParams.badRequest(
          "missing required field 'reason': say why the operator "
              + action.label()
              + "s procedure "
              + id
              + " (it is kept in the audit trail)");
    }
    if (body.deep() && action != OperatorAction.BYPASS) {
      throw QueryParams.badRequest(
          "'recursive' applies to " + OperatorAction.BYPASS.label() + " only");
    }
    requireKnown(id);
    if (body.dry()) {
      return dryRun(req, action, id, body.deep(), raw);
    }
    AuditEntry entry =
        ClusterCalls.await(
            node.act(action, id, body.deep(), req.principal().name(), body.reason().strip()));
    metrics.operatorAction(
        action.label(), entry.refused() ? NodeMetrics.REFUSED : NodeMetrics.DONE);
    if (entry.refused()) {
      throw refused(entry.outcome());
    }
    return entry;
  }

  /**
   * An abort: without a reason (no body, as before reasons existed) asked of the executor directly
   * and answered {@code {aborted}}; with one, an operator action entry like the others, recorded in
   * the audit trail with the principal, answered {@code {aborted, audit}}. A procedure that refuses
   * is {@code aborted: false} either way, not a 409.
   */
  private Object abort(AdminRequest req) throws HttpError, IOException, InterruptedException {
    long id = ProcedureRoutes.procId(req.segment(1));
    req.target("procedure " + id);
    byte[] raw = req.body(MAX_BODY_BYTES);
    ActionRequest body = raw.length == 0 ? NO_BODY : JsonExchange.parse(raw, ActionRequest.class);
    if (body.reason() != null && body.reason().isBlank()) {
      throw QueryParams.badRequest(
          "'reason' is blank: say why the operator aborts procedure "
              + id
              + " (it is kept in the audit trail), or send no reason");
    }
    if (body.deep()) {
      throw QueryParams.badRequest(
          "'recursive' applies to " + OperatorAction.BYPASS.label() + " only");
    }
    requireKnown(id);
    if (body.dry()) {
      return dryRun(req, OperatorAction.ABORT, id, false, raw);
    }
    String label = OperatorAction.ABORT.label();
    Map<String, Object> out = new LinkedHashMap<>();
    if (body.reason() == null) {
      boolean aborted = ClusterCalls.await(node.abort(id));
      metrics.operatorAction(label, aborted ? NodeMetrics.DONE : NodeMetrics.REFUSED);
      out.put(ABORTED, aborted);
      return out;
    }
    AuditEntry entry =
        ClusterCalls.await(
            node.act(
                OperatorAction.ABORT, id, false, req.principal().name(), body.reason().strip()));
    metrics.operatorAction(label, entry.refused() ? NodeMetrics.REFUSED : NodeMetrics.DONE);
    out.put(ABORTED, !entry.refused());
    out.put("audit", entry);
    return out;
  }

  private void requireKnown(long id) throws HttpError, InterruptedException {
    ClusterCalls.requireKnown(node, id);
  }

  /** The plan of the leader's executor; a follower asks the leader. */
  private Object dryRun(
      AdminRequest req, OperatorAction action, long id, boolean recursive, byte[] raw)
      throws HttpError, IOException, InterruptedException {
    Optional<ProcedureExecutor<ConfigNodeEnv>> executor = node.executor();
    if (executor.isEmpty()) {
      JsonNode body = Json.LENIENT.readTree(raw);
      return leader.post(
          req,
          "/api/" + ProcedureRoutes.PATH + "/" + id + "/" + action.label(),
          body,
          "the plan of an operator action");
    }
    ActionPlan plan = executor.get().plan(action, id, recursive);
    if (!plan.allowed()) {
      throw refused(plan.refusal());
    }
    return plan;
  }

  /** The 409 {@value #REFUSED} of an action refused for {@code why}. */
  static HttpError refused(String why) {
    return new HttpError(HttpURLConnection.HTTP_CONFLICT, REFUSED, why);
  }
}
