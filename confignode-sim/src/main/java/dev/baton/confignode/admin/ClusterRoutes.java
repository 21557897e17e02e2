package dev.baton.confignode.admin;

import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.consensus.NodeRole;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.ProcedureExecutor;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /api/cluster} (this node's own view: role, leader, term, applied index, the group's
 * members with their address, role, last contact and log positions, its executor, and its process's
 * id and start time), {@code /api/overview} (the leader's {@link ClusterOverview}; a follower
 * forwards the request with the caller's credentials, {@link LeaderForward}) and {@code
 * /api/metadata} (a linearizable read of databases, regions, DataNodes, and the ConfigNodes that
 * membership changes added or removed).
 */
final class ClusterRoutes implements AdminRoutes {
  /**
   * When this process started (epoch ms): a restarted node answers with another, so a rolling
   * restart tells the new process from the old one still shutting down.
   */
  private static final long STARTED_AT_MILLIS = ManagementFactory.getRuntimeMXBean().getStartTime();

  private final ProcedureNode<ConfigNodeEnv> node;
  private final LeaderForward leader;

  ClusterRoutes(ProcedureNode<ConfigNodeEnv> node, LeaderForward leader) {
    this.node = node;
    this.leader = leader;
  }

  @Override
  public List<Endpoint> endpoints() {
    return List.of(
        Endpoint.get(
            "/api/cluster",
            "this node's view: role, leader, term, peers, its executor and last recovery",
            req -> cluster()),
        Endpoint.get(
            "/api/overview",
            "the leader's overview: procedures by state and type, live, stuck, oldest age, its"
                + " executor's workers and queue, every member's role, term, commit and applied"
                + " index",
            this::overview),
        Endpoint.get(
            "/api/metadata",
            "the cluster metadata (databases, regions, DataNodes), read linearizably",
            req -> metadata()));
  }

  private Map<String, Object> cluster() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("nodeId", node.nodeId());
    out.put("role", node.role());
    out.put("leaderId", node.leaderId().orElse(null));
    out.put("term", node.term());
    out.put("commitIndex", node.commitIndex());
    out.put("appliedIndex", node.metrics().appliedIndex());
    out.put("peers", new ArrayList<>(node.peers().keySet()));
    out.put("members", node.membership().members());
    out.put("executor", executor());
    out.put("rejectedStaleWrites", node.rejectedWriteCount());
    out.put("pid", ProcessHandle.current().pid());
    out.put("startedAtMillis", STARTED_AT_MILLIS);
    return out;
  }

  /**
   * This node's executor: {@code state} is RUNNING on the leader whose executor runs, else the
   * node's role; {@code running} procedures whose step a worker runs now, {@code queued} ones ready
   * and waiting for a worker, {@code recovering} while a new leader rebuilds its executor (with
   * {@code recoveryStage} and {@code recoveringSinceMillis}: where the rebuild stands, since when).
   */
  private Map<String, Object> executor() {
    Map<String, Object> executor = new LinkedHashMap<>();
    Optional<ProcedureExecutor<ConfigNodeEnv>> e = node.executor();
    executor.put("state", e.isPresent() ? "RUNNING" : node.role().name());
    executor.put("running", e.map(ProcedureExecutor::runningCount).orElse(0));
    executor.put("queued", e.map(ProcedureExecutor::queuedCount).orElse(0));
    executor.put("recovering", node.role() == NodeRole.LEADER_RECOVERING);
    node.recoveryProgress()
        .ifPresent(
            r -> {
              executor.put("recoveryStage", r.stage());
              executor.put("recoveringSinceMillis", r.sinceMillis());
            });
    executor.put("live", e.map(ProcedureExecutor::liveCount).orElse(0));
    executor.put("workers", e.map(ProcedureExecutor::workerCount).orElse(0));
    node.lastRecovery()
        .ifPresent(
            r -> {
              executor.put("lastRecoveryTerm", r.term());
              executor.put("lastRecoveryProcedures", r.procedures());
              executor.put("lastRecoveryMillis", r.rebuildTime().toMillis());
              executor.put("lastRecoveryRunningAt", r.runningAtMillis());
            });
    return executor;
  }

  private Object overview(AdminRequest req) throws HttpError, InterruptedException {
    Optional<ProcedureExecutor<ConfigNodeEnv>> executor = node.executor();
    if (executor.isEmpty()) {
      return leader.get(req, "/api/overview", "the overview");
    }
    return ClusterOverview.of(node, executor.get());
  }

  private Map<String, Object> metadata() throws HttpError, InterruptedException {
    ClusterMetadata.View view =
        new ClusterMetadata.View(ClusterCalls.await(node.metadata().read("")));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("databases", view.databases());
    out.put("regions", view.regions());
    out.put("dataNodes", view.dataNodes());
    out.put("configNodes", view.configNodes());
    return out;
  }
}
