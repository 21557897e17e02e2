package dev.baton.confignode.admin;

import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.consensus.Membership;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The console's overview in one answer ({@code GET /api/overview}, from the leader; {@link
 * ClusterRoutes}): procedures counted by state and by type, live ones, stuck ones (live, unchanged
 * for {@link #STUCK_AFTER}), the oldest live one's age, the executor's workers, running steps and
 * queue, and every member's role, term, commit index, log position and applied index. The leader
 * knows its followers' commit index and the last log index they hold, not what they applied ({@code
 * appliedIndex} is null for them); a member it heard from lately follows it in its term.
 */
final class ClusterOverview {
  /** A live procedure whose record has not changed for this long counts as stuck. */
  static final Duration STUCK_AFTER = Duration.ofMinutes(1);

  private ClusterOverview() {}

  /** The overview of the leader {@code node}, whose executor {@code e} runs. */
  static Map<String, Object> of(
      ProcedureNode<ConfigNodeEnv> node, ProcedureExecutor<ConfigNodeEnv> e)
      throws HttpError, InterruptedException {
    List<ProcedureInfo> all = ClusterCalls.await(node.list());
    long now = System.currentTimeMillis();
    Map<String, Integer> byState = new TreeMap<>();
    Map<String, Integer> byType = new TreeMap<>();
    int live = 0;
    int stuck = 0;
    long oldest = 0;
    for (ProcedureInfo p : all) {
      byState.merge(p.state().name(), 1, Integer::sum);
      byType.merge(p.type(), 1, Integer::sum);
      if (!p.finished()) {
        live++;
        oldest = Math.max(oldest, now - p.submittedTime());
        if (now - p.lastUpdate() > STUCK_AFTER.toMillis()) {
          stuck++;
        }
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("nodeId", node.nodeId());
    out.put("term", node.term());
    out.put("procedures", all.size());
    out.put("byState", byState);
    out.put("byType", byType);
    out.put("live", live);
    out.put("stuck", stuck);
    out.put("stuckAfterMillis", STUCK_AFTER.toMillis());
    out.put("oldestLiveAgeMillis", live == 0 ? null : oldest);
    Map<String, Object> exec = new LinkedHashMap<>();
    exec.put("workers", e.workerCount());
    exec.put("running", e.runningCount());
    exec.put("queued", e.queuedCount());
    exec.put("live", e.liveCount());
    out.put("executor", exec);
    out.put("nodes", nodes(node));
    return out;
  }

  private static List<Map<String, Object>> nodes(ProcedureNode<ConfigNodeEnv> node) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Membership.Member m : node.membership().members()) {
      boolean self = m.id().equals(node.nodeId());
      Map<String, Object> n = new LinkedHashMap<>();
      n.put("id", m.id());
      n.put("role", m.role());
      n.put("live", m.live());
      n.put("term", self || m.live() ? node.term() : null);
      n.put("commitIndex", self ? node.commitIndex() : m.commitIndex());
      n.put("matchIndex", m.matchIndex());
      n.put("appliedIndex", self ? node.metrics().appliedIndex() : null);
      n.put("lastContactMillis", m.lastContactMillis());
      out.add(n);
    }
    return out;
  }
}
