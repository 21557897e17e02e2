package dev.baton.it;

import dev.baton.confignode.cluster.ChildJvm;
import dev.baton.confignode.cluster.ProcessCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Restarts as an operator meets them, on a local secured 5-ConfigNode process cluster: a member
 * killed while the others commit, then started again (milliseconds until it applied what the leader
 * had committed, from its process' start), and the whole cluster killed and started again (until a
 * leader runs its executor, from the processes' start; and the leaders the members learned of in a
 * quiet while after). Not a test: run it by hand with the jar on the class path (its child
 * processes run from the class path):
 *
 * <pre>
 * mvn -B -q -pl integration-test -am verify -DskipTests
 * java -cp integration-test/target/test-classes:confignode-sim/target/confignode-sim.jar \
 *   dev.baton.it.RestartBenchmark [MEMBER_RESTARTS, default 5] [WHOLE_RESTARTS, default 20] \
 *   [ENTRIES, default 0]
 * </pre>
 *
 * Before each whole restart it grows the log by ENTRIES one-step Noops submitted one at a time
 * (each a few entries of its own), which the members apply again at their start as far as their
 * newest snapshots leave them. With {@code -DrestartBenchmark.keepDir=true} the cluster's
 * directory, with every process' log, stays; {@code -DrestartBenchmark.nodeFlags="--snapshot-every
 * 10000"} adds flags to every ConfigNode's command line, and {@code
 * -Dbaton.childJvm.flags="-XX:TieredStopAtLevel=1"} JVM flags to every ConfigNode's JVM ({@link
 * ChildJvm#FLAGS_PROPERTY}); the summary names both.
 */
public final class RestartBenchmark {
  static final int NODES = 5;
  static final int DEFAULT_MEMBER_RESTARTS = 5;
  static final int DEFAULT_WHOLE_RESTARTS = 20;

  /**
   * How long a killed member stays down while the others commit: long enough for the leader to have
   * failed to reach it dozens of times (Ratis' own retry policy waits 5 s after thirty).
   */
  static final Duration MEMBER_DOWN = Duration.ofSeconds(20);

  /** How long the cluster is watched after a whole restart for a second election. */
  static final Duration QUIET = Duration.ofSeconds(5);

  static final double P50 = 0.50;

  /** Set to true to keep the cluster's directory (the ConfigNodes' logs) after the run. */
  static final String KEEP_DIR_PROPERTY = "restartBenchmark.keepDir";

  /** Flags added to every ConfigNode's command line, separated by spaces. */
  static final String NODE_FLAGS_PROPERTY = "restartBenchmark.nodeFlags";

  private RestartBenchmark() {}

  public static void main(String[] args) throws Exception {
    int memberRestarts = count(args, 0, DEFAULT_MEMBER_RESTARTS);
    int wholeRestarts = count(args, 1, DEFAULT_WHOLE_RESTARTS);
    int entries = count(args, 2, 0);
    String flags = System.getProperty(NODE_FLAGS_PROPERTY, "").trim();
    List<String> nodeFlags = flags.isEmpty() ? List.of() : List.of(flags.split("\\s+"));
    try (ProcessCluster cluster =
        ProcessCluster.start(NODES, 0, Boolean.getBoolean(KEEP_DIR_PROPERTY), nodeFlags)) {
      List<Long> raftStart = new ArrayList<>();
      List<Long> matched = new ArrayList<>();
      List<Long> caughtUp = new ArrayList<>();
      for (int i = 0; i < memberRestarts; i++) {
        String leader = cluster.leader();
        String member =
            cluster.nodeIds().stream()
                .filter(id -> !id.equals(leader))
                .toList()
                .get(i % (NODES - 1));
        RestartProbes.CatchUp c = RestartProbes.restartMember(cluster, member, MEMBER_DOWN);
        raftStart.add(c.raftStartMillis());
        matched.add(c.matchedMillis());
        caughtUp.add(c.appliedMillis());
        System.out.printf(
            Locale.ROOT,
            "member %s restarted: Raft server up %d ms after the process started; held the log to"
                + " index %d %d ms after that, applied it after %d ms; terms passed meanwhile %d%n%s",
            member,
            c.raftStartMillis(),
            c.index(),
            c.matchedMillis(),
            c.appliedMillis(),
            c.termsPassed(),
            c.timeline());
      }
      List<Long> running = new ArrayList<>();
      List<Long> logged = new ArrayList<>();
      List<Long> fromMajority = new ArrayList<>();
      Map<Long, Integer> changes = new TreeMap<>();
      List<Long> nodeCpu = new ArrayList<>();
      List<Long> cpuOverCores = new ArrayList<>();
      List<Long> busyPercent = new ArrayList<>();
      int cores = Runtime.getRuntime().availableProcessors();
      for (int i = 0; i < wholeRestarts; i++) {
        RestartProbes.WholeRestart w = RestartProbes.restartAll(cluster, QUIET, entries);
        running.add(w.leaderRunningMillis());
        logged.add(w.loggedRunningMillis());
        fromMajority.add(w.fromMajorityMillis());
        changes.merge(w.leaderChanges(), 1, Integer::sum);
        nodeCpu.addAll(w.cpuMillis().values());
        cpuOverCores.add(w.cpuOverCoresMillis(cores));
        busyPercent.add(w.cpuBusyPercent(cores));
        System.out.printf(
            Locale.ROOT,
            "whole restart %d: leader running %d ms after the processes started (%d by its log),"
                + " %d ms after a majority's Raft servers started; leaders seen %d; CPU ms of each"
                + " process then %s, their sum over the %d cores %d ms (%d%% of the wall time)%n%s",
            i + 1,
            w.leaderRunningMillis(),
            w.loggedRunningMillis(),
            w.fromMajorityMillis(),
            w.leaderChanges(),
            w.cpuMillis(),
            cores,
            cpuOverCores.get(i),
            busyPercent.get(i),
            w.timeline());
      }
      System.out.printf(
          Locale.ROOT,
          "restart benchmark (%d ConfigNodes): restarted member holds the log ms from its Raft"
              + " start p50 %d max %d, applied it p50 %d max %d (process start -> Raft start p50 %d"
              + " max %d; %d samples, down %d s);"
              + " whole restart -> leader running ms p50 %d max %d from the processes' start (by the"
              + " leader's log p50 %d max %d), p50"
              + " %d max %d from a majority's Raft start; leader changes per restart %s over %d"
              + " restarts; CPU ms of a node's process when the leader ran p50 %d max %d, all"
              + " nodes' over the %d cores p50 %d ms (p50 %d%% of the wall time); node"
              + " flags [%s], JVM flags [%s]%n",
          NODES,
          at(matched, P50),
          max(matched),
          at(caughtUp, P50),
          max(caughtUp),
          at(raftStart, P50),
          max(raftStart),
          caughtUp.size(),
          MEMBER_DOWN.toSeconds(),
          at(running, P50),
          max(running),
          at(logged, P50),
          max(logged),
          at(fromMajority, P50),
          max(fromMajority),
          changes,
          running.size(),
          at(nodeCpu, P50),
          max(nodeCpu),
          cores,
          at(cpuOverCores, P50),
          at(busyPercent, P50),
          flags,
          System.getProperty(ChildJvm.FLAGS_PROPERTY, "").strip());
    }
  }

  /** The count given as argument {@code i}, or {@code otherwise}. */
  private static int count(String[] args, int i, int otherwise) {
    return i < args.length ? Integer.parseInt(args[i]) : otherwise;
  }

  private static long at(List<Long> values, double q) {
    if (values.isEmpty()) {
      return -1;
    }
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get((int) Math.min(sorted.size() - 1, Math.floor(q * sorted.size())));
  }

  private static long max(List<Long> values) {
    return values.isEmpty() ? -1 : Collections.max(values);
  }
}
