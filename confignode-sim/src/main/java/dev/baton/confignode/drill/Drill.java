package dev.baton.confignode.drill;

import static dev.baton.confignode.drill.DrillWorkload.args;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.cluster.ClusterHosts;
import dev.baton.confignode.cluster.HistoryRecorder;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.history.History;
import dev.baton.confignode.history.HistoryChecker;
import dev.baton.confignode.history.HistoryViolation;
import dev.baton.confignode.hosts.NetnsHosts;
import dev.baton.confignode.hosts.NetworkFault;
import dev.baton.confignode.hosts.PartitionKind;
import dev.baton.confignode.partition.PartitionTrial;
import dev.baton.confignode.partition.StepDownWatch;
import dev.baton.confignode.waits.ConfigNodeWaits;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The drill: a local cluster of ConfigNode and DataNode processes, a mixed workload, a SIGKILL of
 * the leader in the middle (or, with {@link Settings#partition}, the leader cut off from the other
 * ConfigNodes until a new leader runs and the old one stepped down), and a check of the invariants
 * from the procedures' final states, the metadata and the DataNodes' ledgers ({@link DrillChecks}),
 * with ConfigNode membership changes under the workload ({@link MembershipPhases}: the killed
 * leader replaced under a new id, a follower removed and a fresh node added), and of the workload's
 * recorded submissions and reads ({@link HistoryChecker}). Prints progress and a report ({@link
 * DrillReport}); {@link #run} returns true only if every invariant holds.
 */
public final class Drill implements AutoCloseable {
  /** Sleep procedures in flight during the kill: live procedures parked in WAITING_TIMEOUT. */
  static final int SLEEPERS = 3;

  static final long SLEEP_MILLIS = 1500;

  /** Latency added to every DataNode command in phase 2, so steps are in flight at the kill. */
  static final Duration PHASE2_LATENCY = Duration.ofMillis(100);

  /** The metric of a ConfigNode's applied Raft log index. */
  static final String APPLIED_INDEX = "baton_raft_applied_index";

  /** Fewest databases phase 1 creates. */
  static final int MIN_DATABASES = 4;

  /** Phase sizes are fractions of the workload: 1/3 databases, 1/3 migrations, ... */
  static final int SHARE = 3;

  /** The leader dies once this fraction (1/4) of phase 2 finished. */
  static final int KILL_AFTER_FRACTION = 4;

  /**
   * Settings.
   *
   * @param nodes ConfigNode processes
   * @param dataNodes DataNode processes
   * @param procedures size of the workload (procedures submitted, roughly)
   * @param keepDir keep the temp dir (logs, data) for inspection
   * @param secured tokens, HTTPS and Raft over mutual TLS
   * @param hosts where the processes run: loopback, or each on a host in a network namespace
   * @param partition cut the leader off from the other ConfigNodes (it still reaches the DataNodes)
   *     instead of killing it, and heal once a new leader runs; needs hosts in network namespaces
   * @param membership with a kill: replace the killed leader (its disk wiped) under a new id
   *     instead of restarting it, and in phase 3 remove a follower and add a fresh node in its
   *     place ({@link MembershipPhases})
   */
  public record Settings(
      int nodes,
      int dataNodes,
      int procedures,
      boolean keepDir,
      boolean secured,
      ClusterHosts hosts,
      boolean partition,
      boolean membership) {
    /**
     * Secured (tokens, Raft over mutual TLS) on loopback with the membership phases, as the drill
     * runs by default.
     */
    public Settings(int nodes, int dataNodes, int procedures, boolean keepDir) {
      this(nodes, dataNodes, procedures, keepDir, true, ClusterHosts.LOOPBACK, false, true);
    }

    public Settings {
      if (partition && hosts != ClusterHosts.NETNS) {
        throw new IllegalArgumentException(
            "a partition drill needs hosts in network namespaces (hosts netns)");
      }
    }

    public static final int DEFAULT_NODES = 3;
    public static final int DEFAULT_DATANODES = 3;
    public static final int DEFAULT_PROCEDURES = 30;
  }

  private final Settings settings;
  private final PrintStream out;
  private final Path dir;
  private final ProcessCluster cluster;
  private final DrillReport report;
  private DrillWorkload workload;
  private MembershipPhases membership;

  public Drill(Settings settings, PrintStream out) throws IOException {
    this.settings = settings;
    this.out = out;
    this.cluster =
        ProcessCluster.create(
            "baton-drill", settings.keepDir(), List.of(), settings.secured(), settings.hosts());
    this.dir = cluster.dir();
    this.report = new DrillReport(out);
  }

  /** Runs the drill; true if every invariant held. */
  public boolean run() throws IOException, InterruptedException {
    report.progress("working in %s", dir);
    report.partition = settings.partition();
    report.secured = cluster.secured();
    report.hosts = cluster.hosts();
    cluster.startDataNodes(settings.dataNodes());
    report.progress("%d DataNodes up: %s", settings.dataNodes(), cluster.dataNodeAddresses());
    cluster.startConfigNodes(settings.nodes());
    report.progress("%d ConfigNodes started: %s", settings.nodes(), cluster.httpAddresses());
    NodeApiClient api = cluster.api();
    workload = new DrillWorkload(api, report);
    membership = new MembershipPhases(cluster, workload, report);
    String leader = cluster.awaitLeader(Set.of(), -1, report::electionSeen);
    report.initialMembers = new TreeSet<>(cluster.nodeIds()).toString();
    report.progress("leader is %s; waiting for the DataNodes to register", leader);
    ConfigNodeWaits.clusterPoll(ConfigNodeWaits.CLUSTER_WAIT, "DataNodes registered")
        .untilTrue(() -> api.get("/api/metadata").get("dataNodes").size() == settings.dataNodes());
    // a member that holds no entry yet would not count in the election after the fault (Ratis
    // ignores the vote of an empty log): the fault waits until every member holds the log
    cluster.awaitEveryNodeHoldsTheLog();
    report.progress("every ConfigNode holds the log");

    long workloadStart = System.currentTimeMillis();
    int databases = Math.max(MIN_DATABASES, settings.procedures() / SHARE);
    int deletes = Math.max(1, databases / SHARE);
    report.progress("phase 1: create %d databases", databases);
    for (int i = 0; i < databases; i++) {
      workload.submit("create db" + i, "CreateDatabase", args("name", "db" + i));
    }
    workload.awaitAllFinished();

    List<String> migrations =
        DrillWorkload.planMigrations(
            api.get("/api/metadata"),
            Math.max(2, settings.procedures() / SHARE),
            databases - deletes);
    report.progress(
        "phase 2: %d migrations, deletions, new databases, sleepers, with %d ms added per DataNode"
            + " command so the kill lands mid-step; the leader dies meanwhile",
        migrations.size(), PHASE2_LATENCY.toMillis());
    for (DataNodeClient dataNode : dataNodes()) {
      dataNode.addLatency(PHASE2_LATENCY);
    }
    int phaseStart = workload.size();
    for (int i = 0; i < SLEEPERS; i++) {
      workload.submit("sleep " + i, "Sleep", args("millis", SLEEP_MILLIS));
    }
    for (String m : migrations) {
      String[] p = m.split(",");
      workload.submit(
          "migrate region " + p[0],
          "MigrateRegion",
          args(
              "regionId",
              Integer.parseInt(p[0]),
              "from",
              Integer.parseInt(p[1]),
              "to",
              Integer.parseInt(p[2])));
    }
    for (int i = 0; i < deletes; i++) {
      String name = "db" + (databases - 1 - i);
      workload.submit("delete " + name, "DeleteDatabase", args("name", name));
    }
    for (int i = 0; i < deletes; i++) {
      String name = "db" + (databases + i);
      workload.submit("create " + name, "CreateDatabase", args("name", name));
    }
    if (settings.partition()) {
      partitionLeader(leader, phaseStart);
    } else {
      killLeader(leader, phaseStart);
    }
    workload.awaitAllFinished();
    membership.awaitChanges();
    for (DataNodeClient dataNode : dataNodes()) {
      dataNode.resetFaults();
    }

    report.progress(
        "phase 3: remove DataNode 1 (its regions migrate as child procedures)%s",
        membersChange() ? "; meanwhile remove a follower ConfigNode and add a fresh one" : "");
    workload.submit("remove DataNode 1", "RemoveDataNode", args("dataNodeId", 1));
    if (membersChange()) {
      membership.removeAndReAddFollower();
    }
    workload.awaitAllFinished();
    report.wallMillis = System.currentTimeMillis() - workloadStart;

    List<String> violations =
        new ArrayList<>(
            new DrillChecks(
                    api,
                    dataNodes(),
                    cluster.secured() ? Set.copyOf(cluster.nodeIds()) : Set.of(),
                    report)
                .run());
    History history = workload.history().history(HistoryRecorder.finalState(api, dataNodes()));
    List<HistoryViolation> broken = HistoryChecker.check(history);
    broken.forEach(v -> violations.add("history: " + v));
    report.print(settings, dir);
    if (report.notCaughtUp != null) {
      // liveness, not one of the invariants: reported for the operator, the exit code keeps to them
      out.println("FINDING: " + report.notCaughtUp);
    }
    out.println(HistoryChecker.summary(history, broken));
    if (violations.isEmpty()) {
      out.println("RESULT: every invariant holds");
      return true;
    }
    out.println("RESULT: " + violations.size() + " invariant violations:");
    violations.forEach(v -> out.println("  - " + v));
    return false;
  }

  /** Clients of the cluster's DataNodes, secured as the cluster is. */
  private List<DataNodeClient> dataNodes() {
    return cluster.dataNodeIds().stream().map(cluster::dataNode).toList();
  }

  private void awaitQuarterOfPhase2(int phaseStart) throws IOException, InterruptedException {
    ConfigNodeWaits.clusterPoll(ConfigNodeWaits.CLUSTER_WAIT, "a quarter of phase 2 done")
        .untilTrue(
            () ->
                workload.finishedCount()
                    >= phaseStart + (workload.size() - phaseStart) / KILL_AFTER_FRACTION);
  }

  /**
   * Cuts the leader off from the other ConfigNodes (it still reaches every DataNode), waits for a
   * new leader to run and for the old one to step down and stop its executor, then heals.
   */
  private void partitionLeader(String leader, int phaseStart)
      throws IOException, InterruptedException {
    awaitQuarterOfPhase2(phaseStart);
    NodeApiClient api = cluster.api();
    long term = api.cluster(cluster.httpAddresses().get(leader)).get("term").asLong();
    NetnsHosts hosts = cluster.netns().orElseThrow();
    report.progress(
        "cut the leader %s (term %d) off from the other ConfigNodes with %d of %d procedures"
            + " finished",
        leader, term, workload.finishedCount(), workload.size());
    report.oldTerm = term;
    StepDownWatch watch = StepDownWatch.start(cluster, leader);
    report.killAt = System.currentTimeMillis();
    NetworkFault fault =
        NetworkFault.start(
            PartitionKind.ISOLATE_LEADER,
            PartitionTrial.targetsAround(cluster, leader),
            hosts.partitions());
    try {
      String next = cluster.awaitLeader(Set.of(leader), term, report::electionSeen);
      recordNewLeader(api, next);
      ConfigNodeWaits.clusterPoll(
              ConfigNodeWaits.CLUSTER_WAIT, "the old leader " + leader + " stepping down")
          .untilTrue(watch::done);
      report.steppedDownAt = watch.steppedDownAt();
      report.executorStoppedAt = watch.executorStoppedAt();
      report.progress(
          "old leader %s stepped down %d ms after the cut, its executor stopped after %d ms",
          leader, report.steppedDownAt - report.killAt, report.executorStoppedAt - report.killAt);
    } finally {
      try {
        fault.heal();
      } finally {
        watch.stop();
      }
    }
    report.healedAt = System.currentTimeMillis();
    report.progress("healed; %s catches up as a follower", leader);
    long target = appliedIndex(report.newLeader);
    try {
      ConfigNodeWaits.clusterPoll(
              ConfigNodeWaits.CLUSTER_WAIT, leader + " applying up to index " + target)
          .notYetOn(IOException.class)
          .untilTrue(() -> appliedIndex(leader) >= target);
      report.oldLeaderCaughtUpAt = System.currentTimeMillis();
      report.progress(
          "%s applied what the new leader had at the heal (index %d) %d ms after it",
          leader, target, report.oldLeaderCaughtUpAt - report.healedAt);
    } catch (IOException e) {
      report.notCaughtUp =
          "the old leader "
              + leader
              + " had not applied index "
              + target
              + " "
              + ConfigNodeWaits.CLUSTER_WAIT.toSeconds()
              + " s after the heal: "
              + e.getMessage()
              + "; cluster now: "
              + cluster.describeStuck();
      report.progress("%s", report.notCaughtUp);
    }
  }

  /** A ConfigNode's applied Raft log index, from its metrics. */
  private long appliedIndex(String nodeId) throws IOException, InterruptedException {
    String http = cluster.http(nodeId);
    Double v = cluster.client(http).metrics(http).get(APPLIED_INDEX);
    if (v == null) {
      throw new IOException("no " + APPLIED_INDEX + " in the metrics of " + nodeId);
    }
    return v.longValue();
  }

  private void recordNewLeader(NodeApiClient api, String next)
      throws IOException, InterruptedException {
    JsonNode c = api.cluster(cluster.httpAddresses().get(next));
    report.newLeader = next;
    report.newTerm = c.get("term").asLong();
    report.runningAt = c.get("executor").path("lastRecoveryRunningAt").asLong();
    report.rebuilt = c.get("executor").path("lastRecoveryProcedures").asLong();
    report.progress(
        "new leader %s in term %d, executor running %d ms after the %s",
        next, report.newTerm, report.runningAt - report.killAt, report.faultName());
  }

  private void killLeader(String leader, int phaseStart) throws IOException, InterruptedException {
    String replacement = membersChange() ? membership.startReplacement() : null;
    awaitQuarterOfPhase2(phaseStart);
    NodeApiClient api = cluster.api();
    long term = api.cluster(cluster.httpAddresses().get(leader)).get("term").asLong();
    report.progress(
        "SIGKILL the leader %s (term %d) with %d of %d procedures finished",
        leader, term, workload.finishedCount(), workload.size());
    report.killAt = System.currentTimeMillis();
    report.oldTerm = term;
    cluster.kill(leader);
    String next = cluster.awaitLeader(Set.of(leader), term, report::electionSeen);
    recordNewLeader(api, next);
    if (membersChange()) {
      membership.replaceKilled(leader, replacement);
    } else {
      cluster.restart(leader);
      report.progress("restarted %s; it catches up as a follower", leader);
    }
  }

  /** Whether this drill changes the ConfigNode membership (with a kill, not a partition). */
  private boolean membersChange() {
    return settings.membership() && !settings.partition();
  }

  @Override
  public void close() {
    cluster.close();
    if (settings.keepDir()) {
      out.println("kept " + dir);
    }
  }
}
