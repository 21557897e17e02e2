package dev.baton.confignode.admin;

import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.scheduler.LockCycle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code GET /api/locks}: the lock table of the leader's executor, every held or awaited lock with
 * its holders and its wait queue in order ({@link dev.baton.procedure.scheduler.LockInfo}); the
 * wait-for cycles among them now ({@code cycles}: left in place only where the node does not break
 * deadlocks), how many were found this term ({@code deadlocks}) and the last ones ({@code
 * recentDeadlocks}, broken or not: {@link dev.baton.procedure.scheduler.LockCycle}).
 *
 * <p>Locks live only in the leader's memory (recovery rebuilds them each term), so the leader
 * answers from its executor and a follower forwards the request ({@link LeaderForward}).
 */
final class LockRoutes implements AdminRoutes {
  static final String PATH = "locks";

  private final ProcedureNode<ConfigNodeEnv> node;
  private final LeaderForward leader;

  LockRoutes(ProcedureNode<ConfigNodeEnv> node, LeaderForward leader) {
    this.node = node;
    this.leader = leader;
  }

  @Override
  public List<Endpoint> endpoints() {
    return List.of(
        Endpoint.get(
            "/api/" + PATH,
            "the leader's lock table: every held or awaited lock, holders and waiters in order",
            this::locks));
  }

  private Object locks(AdminRequest req) throws HttpError, InterruptedException {
    Optional<ProcedureExecutor<ConfigNodeEnv>> executor = node.executor();
    if (executor.isPresent()) {
      ProcedureExecutor<ConfigNodeEnv> e = executor.get();
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("nodeId", node.nodeId());
      out.put("term", node.term());
      out.put("locks", e.locks());
      out.put("cycles", cycles(e.lockCycles()));
      out.put("deadlocks", e.deadlockCount());
      out.put("recentDeadlocks", cycles(e.recentDeadlocks()));
      return out;
    }
    return leader.get(req, "/api/" + PATH, "the lock table");
  }

  /** Each cycle with its procedures in order and its text for people. */
  private static List<Map<String, Object>> cycles(List<LockCycle> cycles) {
    List<Map<String, Object>> out = new ArrayList<>(cycles.size());
    for (LockCycle c : cycles) {
      Map<String, Object> cycle = new LinkedHashMap<>();
      cycle.put("procIds", c.procIds());
      cycle.put("detectedAt", c.detectedAt());
      cycle.put("victim", c.broken() ? c.victim() : null);
      cycle.put("links", c.links());
      cycle.put("text", c.describe());
      out.add(cycle);
    }
    return out;
  }
}
