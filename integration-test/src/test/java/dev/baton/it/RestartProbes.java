package dev.baton.it;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.waits.ConfigNodeWaits;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Restarts on a {@link ProcessCluster}, timed: one member killed and started again after the others
 * moved on (how long until it applied what the leader had committed), and every member killed and
 * started at once (how long until a leader runs, and how many leaders the members saw until a quiet
 * while later).
 */
final class RestartProbes {
  /** The metric a node counts the leaders it learned of since it started with. */
  static final String LEADER_CHANGES_METRIC = "baton_raft_leader_changes_total";

  /** How often a restarted member's applied index is read while it catches up. */
  static final Duration CATCH_UP_POLL = ConfigNodeWaits.LEADER_POLL;

  static final long PERCENT = 100;

  /**
   * A member restarted: milliseconds from its process' start until its Raft server started (the
   * JVM's and the node's own start-up); from its Raft server's start until the leader saw it hold
   * the log up to the leader's commit index of before the restart (its match index), and until it
   * applied that index (as its own admin API, up some time after its Raft server, reports); the
   * terms the group went through meanwhile (0 when the leader kept leading: otherwise elections
   * took part of that time); and the steps of its start ({@link RestartTimeline}) in ms after its
   * process' start.
   */
  record CatchUp(
      long raftStartMillis,
      long matchedMillis,
      long appliedMillis,
      long index,
      long termsPassed,
      String timeline) {}

  /**
   * A whole cluster restarted: milliseconds from its processes' start until a leader ran its
   * executor (as this process saw it through the admin API, and as the leader's log says: the
   * difference is the polls' delay), from the start of a majority's Raft servers (the first moment
   * a leader can be elected) until then, and the most leaders any member learned of from its start
   * to a quiet while later; the CPU time each member's process had used when the leader ran (its
   * start's cost, in ms, far less sensitive to the machine's load than the wall times); and each
   * member's steps of its start ({@link RestartTimeline}), one a line, in ms after the processes'
   * start.
   */
  record WholeRestart(
      long leaderRunningMillis,
      long loggedRunningMillis,
      long fromMajorityMillis,
      long leaderChanges,
      Map<String, Long> cpuMillis,
      String timeline) {

    /**
     * The members' CPU time when the leader ran, spread over {@code cores}: the least wall time
     * their starts needed on this machine, in ms; -1 if a member's CPU time is unknown. Near {@link
     * #leaderRunningMillis} the restart was bound by CPU, all cores busy until the leader ran.
     */
    long cpuOverCoresMillis(int cores) {
      long sum = 0;
      for (long ms : cpuMillis.values()) {
        if (ms < 0) {
          return -1;
        }
        sum += ms;
      }
      return sum / cores;
    }

    /**
     * {@link #cpuOverCoresMillis} as a share of {@link #leaderRunningMillis}, in percent: how busy
     * the cores were until the leader ran; -1 if a member's CPU time is unknown.
     */
    long cpuBusyPercent(int cores) {
      long floor = cpuOverCoresMillis(cores);
      return floor < 0 ? -1 : PERCENT * floor / leaderRunningMillis;
    }
  }

  private RestartProbes() {}

  /**
   * Kills {@code node}, submits one-step Noops for {@code down} (the log moves on without it; the
   * leader keeps trying it), then starts it again and waits until it applied the leader's commit
   * index of the moment before.
   */
  static CatchUp restartMember(ProcessCluster cluster, String node, Duration down)
      throws IOException, InterruptedException {
    cluster.kill(node);
    long until = System.nanoTime() + down.toNanos();
    while (System.nanoTime() < until) {
      cluster.procedures().submit("Noop", ClusterProcedures.args("steps", 1));
    }
    String leader = cluster.leader();
    long target = cluster.cluster(leader).path("commitIndex").asLong();
    long term = cluster.term(leader);
    NodeApiClient leaderApi = cluster.directClient(leader);
    long start = System.currentTimeMillis();
    cluster.restart(node);
    ConfigNodeWaits.clusterPoll(
            CATCH_UP_POLL,
            ProcessCluster.CLUSTER_WAIT,
            "leader " + leader + " saw " + node + " hold the log up to index " + target)
        .untilTrue(() -> matchIndex(leaderApi, node) >= target);
    long matched = System.currentTimeMillis();
    ConfigNodeWaits.clusterPoll(
            CATCH_UP_POLL,
            ProcessCluster.CLUSTER_WAIT,
            "node " + node + " applied the log up to index " + target)
        .untilTrue(() -> cluster.cluster(node).path("appliedIndex").asLong() >= target);
    long caughtUp = System.currentTimeMillis();
    RestartTimeline steps = RestartTimeline.read(cluster.log(node));
    long raftStart = raftStartMillis(node, steps);
    return new CatchUp(
        raftStart - start,
        matched - raftStart,
        caughtUp - raftStart,
        target,
        cluster.term(node) - term,
        describe(Map.of(node, steps), start));
  }

  /** The match index of {@code node} in the view of the leader {@code leaderApi} calls. */
  static long matchIndex(NodeApiClient leaderApi, String node)
      throws IOException, InterruptedException {
    for (JsonNode n : leaderApi.get("/api/overview").path("nodes")) {
      if (n.path("id").asText().equals(node)) {
        return n.path("matchIndex").asLong(-1);
      }
    }
    return -1;
  }

  /**
   * When {@code node}'s {@code steps} (its current process' log) say its Raft server started, epoch
   * ms.
   */
  private static long raftStartMillis(String node, RestartTimeline steps) throws IOException {
    return steps
        .at(RestartTimeline.Step.RAFT_STARTED)
        .orElseThrow(() -> new IOException(node + " logged no Raft server start"));
  }

  /** The nodes' start {@code steps}, in ms after {@code originMillis}, one node a line. */
  private static String describe(Map<String, RestartTimeline> steps, long originMillis) {
    StringBuilder b = new StringBuilder();
    for (Map.Entry<String, RestartTimeline> e : steps.entrySet()) {
      b.append(
          String.format(
              Locale.ROOT, "  %s: %s%n", e.getKey(), e.getValue().describe(originMillis)));
    }
    return b.toString();
  }

  /**
   * Kills every ConfigNode, starts them all again, waits for a running leader, then watches the
   * cluster for {@code quiet} and reads how many leaders each member learned of.
   */
  static WholeRestart restartAll(ProcessCluster cluster, Duration quiet)
      throws IOException, InterruptedException {
    return restartAll(cluster, quiet, 0);
  }

  /**
   * As {@link #restartAll(ProcessCluster, Duration)}, after one-step Noops submitted one at a time
   * until the log grew by {@code entries} (what the members apply again at their start, past their
   * newest snapshots).
   */
  static WholeRestart restartAll(ProcessCluster cluster, Duration quiet, long entries)
      throws IOException, InterruptedException {
    if (entries > 0) {
      long until = commitIndex(cluster) + entries;
      while (commitIndex(cluster) < until) {
        cluster.procedures().submit("Noop", ClusterProcedures.args("steps", 1));
      }
    }
    cluster.killAllNodes();
    long start = System.currentTimeMillis();
    String leader = cluster.restartAllNodes();
    long running = System.currentTimeMillis();
    Map<String, Long> cpu = cpuMillis(cluster);
    long term = cluster.term(leader);
    long watchUntil = System.nanoTime() + quiet.toNanos();
    ConfigNodeWaits.clusterPoll(CATCH_UP_POLL, quiet.multipliedBy(2), "a quiet while passed")
        .untilTrue(() -> System.nanoTime() >= watchUntil);
    long changes = 0;
    for (String id : cluster.nodeIds()) {
      changes = Math.max(changes, leaderChanges(cluster, id));
    }
    if (changes <= 1 && cluster.term(leader) != term) {
      throw new IllegalStateException(
          "the term moved from "
              + term
              + " to "
              + cluster.term(leader)
              + " but no node counted it");
    }
    Map<String, RestartTimeline> steps = new TreeMap<>();
    List<Long> raftStarts = new ArrayList<>();
    for (String id : cluster.nodeIds()) {
      RestartTimeline t = RestartTimeline.read(cluster.log(id));
      steps.put(id, t);
      raftStarts.add(raftStartMillis(id, t));
    }
    Collections.sort(raftStarts);
    long majorityUp = raftStarts.get(raftStarts.size() / 2);
    long logged =
        steps.get(leader).at(RestartTimeline.Step.EXECUTOR_RUNNING).map(t -> t - start).orElse(-1L);
    return new WholeRestart(
        running - start, logged, running - majorityUp, changes, cpu, describe(steps, start));
  }

  /** The CPU time (user and system) each ConfigNode's current process used so far, in ms. */
  static Map<String, Long> cpuMillis(ProcessCluster cluster) {
    Map<String, Long> cpu = new TreeMap<>();
    for (String id : cluster.nodeIds()) {
      cpu.put(
          id,
          ProcessHandle.of(cluster.pid(id))
              .flatMap(p -> p.info().totalCpuDuration())
              .map(Duration::toMillis)
              .orElse(-1L));
    }
    return cpu;
  }

  /** The leader's commit index. */
  private static long commitIndex(ProcessCluster cluster) throws IOException, InterruptedException {
    return cluster.cluster(cluster.leader()).path("commitIndex").asLong();
  }

  /** The leaders {@code node} learned of since its process started. */
  static long leaderChanges(ProcessCluster cluster, String node)
      throws IOException, InterruptedException {
    for (Map.Entry<String, Double> m : cluster.api().metrics(cluster.http(node)).entrySet()) {
      if (m.getKey().startsWith(LEADER_CHANGES_METRIC)) {
        return m.getValue().longValue();
      }
    }
    throw new IllegalStateException(node + " reports no " + LEADER_CHANGES_METRIC);
  }
}
