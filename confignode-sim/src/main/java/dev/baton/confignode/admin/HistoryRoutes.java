package dev.baton.confignode.admin;

import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.consensus.ProcedureHistory;
import dev.baton.consensus.ProcedureNode;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.List;

/**
 * {@code GET /api/procedures/{id}/history}: a procedure's state timeline from the store, read back
 * from this node's Raft log ({@link ProcedureHistory}: each record with its log index, term, time,
 * state, step, attempt and failure). Every node holds the log, so any node answers; an unknown
 * procedure is a 404.
 */
final class HistoryRoutes implements AdminRoutes {
  private final ProcedureNode<ConfigNodeEnv> node;

  HistoryRoutes(ProcedureNode<ConfigNodeEnv> node) {
    this.node = node;
  }

  @Override
  public List<Endpoint> endpoints() {
    return List.of(
        Endpoint.get(
            "/api/" + ProcedureRoutes.PATH + "/{id}/history",
            "a procedure's state timeline from the Raft log: {procId, logStart, complete, steps:"
                + " [{index, term, time, state, step, attempt, failure, finished}]}",
            req -> history(ProcedureRoutes.procId(req.segment(1)))));
  }

  private ProcedureHistory history(long id) throws HttpError, InterruptedException {
    ClusterCalls.requireKnown(node, id);
    try {
      return node.history(id);
    } catch (IOException e) {
      throw new HttpError(
          HttpURLConnection.HTTP_UNAVAILABLE,
          ClusterCalls.UNAVAILABLE,
          "the Raft log of node " + node.nodeId() + " could not be read: " + e.getMessage());
    }
  }
}
