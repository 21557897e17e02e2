package dev.baton.confignode.admin;

import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.Paging;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.consensus.AuditEntry;
import dev.baton.consensus.ProcedureNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/audit}: the replicated audit trail of operator actions ({@link
 * ProcedureNode#audit}, a linearizable read, so every node answers the same), oldest first, each
 * with its principal, reason, time and outcome. Filtered by principal, procedure and time, and
 * paged as {@code GET /api/procedures} is ({@link Paging}), by the entries' log indexes.
 */
final class AuditRoutes implements AdminRoutes {
  static final String PATH = "/api/audit";

  static final String PRINCIPAL = "principal";
  static final String PROC_ID = "procId";
  static final String SINCE = "since";
  static final String UNTIL = "until";

  private final ProcedureNode<ConfigNodeEnv> node;

  AuditRoutes(ProcedureNode<ConfigNodeEnv> node) {
    this.node = node;
  }

  @Override
  public List<Endpoint> endpoints() {
    return List.of(
        Endpoint.get(
                PATH,
                "one page of the replicated audit trail of operator actions that match the"
                    + " filters, oldest first",
                this::list)
            .withQuery(
                PRINCIPAL + ": only actions of this principal",
                PROC_ID + ": only actions on this procedure",
                SINCE + ": only actions at or after this time (epoch ms or ISO-8601 instant)",
                UNTIL + ": only actions before this time (epoch ms or ISO-8601 instant)",
                "limit: page size, 1 to " + Paging.MAX_PAGE,
                "after: only entries whose index is above this one (the previous page's "
                    + Paging.NEXT_AFTER_HEADER
                    + " header)"));
  }

  private List<AuditEntry> list(AdminRequest req) throws HttpError, InterruptedException {
    Map<String, String> query = req.query();
    int limit = (int) QueryParams.number(query, "limit", Paging.DEFAULT_PAGE, 1, Paging.MAX_PAGE);
    long after = QueryParams.number(query, "after", 0, 0, Long.MAX_VALUE);
    long procId = QueryParams.number(query, PROC_ID, 0, 1, Long.MAX_VALUE);
    long since = QueryParams.instant(query, SINCE, Long.MIN_VALUE);
    long until = QueryParams.instant(query, UNTIL, Long.MAX_VALUE);
    String principal = query.get(PRINCIPAL);
    List<AuditEntry> out = new ArrayList<>();
    for (AuditEntry e : ClusterCalls.await(node.audit())) {
      if (e.index() <= after
          || (procId != 0 && e.procId() != procId)
          || (principal != null && !principal.equals(e.principal()))
          || e.timeMillis() < since
          || e.timeMillis() >= until) {
        continue;
      }
      if (out.size() == limit) {
        req.setResponseHeader(
            Paging.NEXT_AFTER_HEADER, Long.toString(out.get(out.size() - 1).index()));
        break;
      }
      out.add(e);
    }
    return out;
  }
}
