package dev.baton.confignode.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cluster.ClusterHosts;
import dev.baton.confignode.cluster.HistoryRecorder;
import dev.baton.confignode.cluster.InvariantCheck;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.history.History;
import dev.baton.confignode.history.HistoryChecker;
import dev.baton.confignode.history.HistoryViolation;
import dev.baton.confignode.hosts.NetworkFault;
import dev.baton.confignode.hosts.PartitionKind;
import dev.baton.confignode.partition.PartitionTrial;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.procedure.util.Poll;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A seeded chaos run on a local process cluster: a steady mixed workload while a {@link
 * FaultSchedule} kills, pauses and restarts ConfigNodes (never more than a minority at once; a
 * killed node counts as faulted until its restarted process answers, so the majority is kept, and
 * later faults wait for that), kills every ConfigNode at once for at most {@link
 * Settings#maxMajorityLossMillis()} before restarting them all, makes DataNodes fail commands, and
 * kills and restarts DataNodes, and (with {@link Settings#network}) puts network partitions in
 * place around the leader of the moment; then every fault is healed, a quiet period lets every
 * procedure finish, unacknowledged submissions are asked again with their nonces, and {@link
 * InvariantCheck} checks everything, and {@link HistoryChecker} the recorded client operations (the
 * workload's submissions and reads, and periodic reads of random nodes, {@link ChaosReads}). Prints
 * the seed first, a timeline as it goes, and the result; the same seed replays the same schedule
 * and workload choices.
 */
public final class ClusterChaosRun {
  /** A step may take this long (a signal, a leader lookup) before the schedule shifts. */
  static final Duration STEP_SLACK = Duration.ofMillis(200);

  /**
   * Settings.
   *
   * @param seed drives the fault schedule and the workload's choices
   * @param seconds how long faults are injected
   * @param nodes ConfigNode processes (3 or 5)
   * @param dataNodes DataNode processes
   * @param keepDir keep logs and data afterwards
   * @param maxMajorityLossMillis how long every ConfigNode may stay killed before the restart (the
   *     bound on losing the majority; the restart and election come on top); 0 for no whole-cluster
   *     outage
   * @param network network partitions in the schedule too; the processes then run on hosts in
   *     network namespaces
   */
  public record Settings(
      long seed,
      int seconds,
      int nodes,
      int dataNodes,
      boolean keepDir,
      long maxMajorityLossMillis,
      boolean network) {
    public static final int DEFAULT_SECONDS = 60;
    public static final int DEFAULT_NODES = 3;
    public static final int DEFAULT_DATANODES = 3;

    /** With the schedule's default bound on losing the majority. */
    public Settings(long seed, int seconds, int nodes, int dataNodes, boolean keepDir) {
      this(
          seed, seconds, nodes, dataNodes, keepDir, FaultSchedule.DEFAULT_MAX_MAJORITY_LOSS_MILLIS);
    }

    /** Without network faults, on loopback. */
    public Settings(
        long seed,
        int seconds,
        int nodes,
        int dataNodes,
        boolean keepDir,
        long maxMajorityLossMillis) {
      this(seed, seconds, nodes, dataNodes, keepDir, maxMajorityLossMillis, false);
    }

    public Settings {
      if (maxMajorityLossMillis < 0) {
        throw new IllegalArgumentException(
            "maxMajorityLossMillis must not be negative, got " + maxMajorityLossMillis);
      }
      if (nodes != 3 && nodes != 5) {
        throw new IllegalArgumentException("nodes must be 3 or 5, got " + nodes);
      }
      if (seconds < 1 || dataNodes < 1) {
        throw new IllegalArgumentException(
            "seconds and dataNodes must be positive: " + seconds + ", " + dataNodes);
      }
    }
  }

  private final Settings settings;
  private final PrintStream out;
  private long start;
  private long killedAllAt;
  private long longestOutage; // every ConfigNode killed until their restart was issued
  private long longestLeaderless; // every ConfigNode killed until a leader ran again
  private final Map<Integer, NetworkFault> partitions = new HashMap<>(); // by event index

  public ClusterChaosRun(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  /** Runs; the invariant check's result (its {@code ok()} says whether all held). */
  public InvariantCheck.Result run() throws IOException, InterruptedException {
    FaultSchedule schedule =
        FaultSchedule.generate(
            settings.seed(),
            TimeUnit.SECONDS.toMillis(settings.seconds()),
            settings.nodes(),
            settings.dataNodes(),
            settings.maxMajorityLossMillis(),
            settings.network());
    out.printf(
        Locale.ROOT,
        "chaos seed %d: %d s of faults on %d ConfigNodes and %d DataNodes, majority lost for %d ms"
            + " at most%s; replay with --seed %d%n",
        settings.seed(),
        settings.seconds(),
        settings.nodes(),
        settings.dataNodes(),
        settings.maxMajorityLossMillis(),
        settings.network() ? ", network partitions on hosts in network namespaces" : "",
        settings.seed());
    out.println("fault schedule:");
    schedule.events().forEach(e -> out.println("  " + e));
    try (ProcessCluster cluster =
        ProcessCluster.start(
            settings.nodes(),
            settings.dataNodes(),
            settings.keepDir(),
            List.of(),
            settings.network() ? ClusterHosts.NETNS : ClusterHosts.LOOPBACK)) {
      start = System.currentTimeMillis();
      log(
          "cluster up in %s, %s",
          cluster.dir(),
          cluster.secured()
              ? "secured (HTTPS with tokens, Raft over mutual TLS, DataNodes over mutual TLS)"
              : "insecure (plain HTTP without tokens, plain Raft)");
      ChaosWorkload workload = new ChaosWorkload(cluster, settings.seed());
      Thread worker = new Thread(workload, "chaos-workload");
      ChaosReads reads = new ChaosReads(cluster, settings.seed());
      Thread reader = new Thread(reads, "chaos-reads");
      LeaderWatch watch = new LeaderWatch(cluster);
      Thread watcher = new Thread(watch, "chaos-leader-watch");
      worker.start();
      reader.start();
      watcher.start();
      try {
        inject(cluster, schedule);
      } finally {
        workload.stop();
        reads.stop();
        worker.join(ConfigNodeWaits.CHAOS_WORKLOAD_STOP.toMillis());
        reader.join(ConfigNodeWaits.CHAOS_WORKLOAD_STOP.toMillis());
        healAll(cluster);
        watch.stop();
        watcher.join();
      }
      log("faults over, %d submissions made; quiet period", workload.attemptedCount());
      for (ChaosWorkload.Submission s : workload.unacknowledged()) {
        long id = cluster.procedures().submit(s.type(), s.args(), s.nonce());
        log("asked again for nonce %d: procedure %d", s.nonce(), id);
      }
      cluster.procedures().awaitAllFinished(ConfigNodeWaits.CHAOS_QUIET_LIMIT);
      log("every procedure is terminal; checking the invariants");
      List<DataNodeClient> dataNodes = new ArrayList<>();
      for (int id : cluster.dataNodeIds()) {
        dataNodes.add(cluster.dataNode(id));
      }
      InvariantCheck.Result result =
          InvariantCheck.check(cluster.api(), dataNodes, cluster.procedures().acknowledged(), true);
      History history =
          cluster
              .procedures()
              .history()
              .history(HistoryRecorder.finalState(cluster.api(), dataNodes));
      List<HistoryViolation> broken = HistoryChecker.check(history);
      out.println(HistoryChecker.summary(history, broken));
      for (HistoryViolation v : broken) {
        result = result.withViolation("history: " + v);
      }
      out.printf(
          Locale.ROOT,
          "longest whole-cluster outage: %d ms killed (bound %d ms), %d ms until a leader ran%n",
          longestOutage,
          settings.maxMajorityLossMillis(),
          longestLeaderless);
      if (longestOutage > settings.maxMajorityLossMillis() + STEP_SLACK.toMillis()) {
        result =
            result.withViolation(
                "every ConfigNode was down for "
                    + longestOutage
                    + " ms, above the bound of "
                    + settings.maxMajorityLossMillis()
                    + " ms");
      }
      out.println(result.describe());
      out.printf(
          Locale.ROOT, "chaos seed %d: %s%n", settings.seed(), result.ok() ? "PASS" : "FAIL");
      return result;
    }
  }

  private void inject(ProcessCluster cluster, FaultSchedule schedule)
      throws IOException, InterruptedException {
    List<long[]> steps = new ArrayList<>(); // {time, event index, 0 apply | 1 heal}
    List<FaultEvent> events = schedule.events();
    for (int i = 0; i < events.size(); i++) {
      steps.add(new long[] {events.get(i).atMillis(), i, 0});
      steps.add(new long[] {events.get(i).healAtMillis(), i, 1});
    }
    steps.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(b[2], a[2]));
    Map<Integer, String> hit = new HashMap<>();
    Map<Integer, Long> appliedAt = new HashMap<>();
    long lag = 0; // how far behind the schedule slow restarts have put us: later steps shift
    for (long[] step : steps) {
      long due = start + lag + step[0];
      if (step[2] == 1) { // a fault lasts its duration from when it was applied, not longer
        due =
            Math.min(
                due, appliedAt.get((int) step[1]) + events.get((int) step[1]).durationMillis());
      }
      long wait = due - System.currentTimeMillis();
      if (wait > 0) {
        Thread.sleep(wait);
      }
      FaultEvent e = events.get((int) step[1]);
      if (step[2] == 0 && e.action().partition().isPresent()) {
        hit.put((int) step[1], partition(cluster, (int) step[1], e.action().partition().get()));
        appliedAt.put((int) step[1], System.currentTimeMillis());
      } else if (step[2] == 0) {
        hit.put((int) step[1], apply(cluster, e));
        appliedAt.put((int) step[1], System.currentTimeMillis());
      } else if (e.action().partition().isPresent()) {
        partitions.remove((int) step[1]).heal();
        log("healed %s %s", e.action(), hit.get((int) step[1]));
      } else {
        heal(cluster, e, hit.get((int) step[1]));
      }
      lag += Math.max(0, System.currentTimeMillis() - due - STEP_SLACK.toMillis());
    }
    long end =
        start + lag + TimeUnit.SECONDS.toMillis(settings.seconds()) - System.currentTimeMillis();
    if (end > 0) {
      Thread.sleep(end);
    }
  }

  /** Puts a network partition in place around the current leader; returns what it cut. */
  private String partition(ProcessCluster cluster, int index, PartitionKind kind)
      throws IOException, InterruptedException {
    NetworkFault f =
        NetworkFault.start(
            kind,
            PartitionTrial.targetsAround(cluster, cluster.leader()),
            cluster.netns().orElseThrow().partitions());
    partitions.put(index, f);
    String cut = f.describe();
    log("%s %s", FaultEvent.Action.valueOf("PARTITION_" + kind.name()), cut);
    return cut;
  }

  /** Applies a fault; returns the node (or DataNode) it hit. */
  private String apply(ProcessCluster cluster, FaultEvent e)
      throws IOException, InterruptedException {
    String node =
        switch (e.action()) {
          case KILL_LEADER, PAUSE_LEADER -> cluster.leader();
          case KILL_NODE, PAUSE_NODE -> cluster.nodeIds().get(e.target());
          case FAIL_DATANODE, KILL_DATANODE -> "DataNode " + e.target();
          case KILL_ALL_NODES -> "every ConfigNode";
          default -> throw new IllegalArgumentException("not a process fault: " + e.action());
        };
    switch (e.action()) {
      case KILL_LEADER, KILL_NODE -> cluster.kill(node);
      case PAUSE_LEADER, PAUSE_NODE -> cluster.pause(node);
      case FAIL_DATANODE -> cluster.dataNode(e.target()).failNext(FaultSchedule.DATANODE_FAILURES);
      case KILL_DATANODE -> cluster.killDataNode(e.target());
      case KILL_ALL_NODES -> {
        cluster.killAllNodes();
        killedAllAt = System.currentTimeMillis();
      }
      default -> throw new IllegalArgumentException("not a process fault: " + e.action());
    }
    log("%s %s", e.action(), node);
    return node;
  }

  private void heal(ProcessCluster cluster, FaultEvent e, String node)
      throws IOException, InterruptedException {
    switch (e.action()) {
      case KILL_LEADER, KILL_NODE -> {
        // the fault lasts until the node is back: the next one must not cost the majority
        cluster.restart(node);
        cluster.awaitAnswering(node);
      }
      case PAUSE_LEADER, PAUSE_NODE -> cluster.resume(node);
      case FAIL_DATANODE -> cluster.dataNode(e.target()).resetFaults();
      case KILL_DATANODE -> cluster.restartDataNode(e.target());
      case KILL_ALL_NODES -> {
        long down = System.currentTimeMillis() - killedAllAt;
        String leader = cluster.restartAllNodes();
        long leaderless = System.currentTimeMillis() - killedAllAt;
        longestOutage = Math.max(longestOutage, down);
        longestLeaderless = Math.max(longestLeaderless, leaderless);
        log(
            "healed %s: restarted after %d ms down, leader %s running %d ms after the kill",
            e.action(), down, leader, leaderless);
        return;
      }
      default -> throw new IllegalArgumentException("not a process fault: " + e.action());
    }
    log("healed %s %s", e.action(), node);
  }

  /** Restarts, resumes and resets whatever is still faulted. */
  private void healAll(ProcessCluster cluster) throws IOException, InterruptedException {
    for (NetworkFault f : List.copyOf(partitions.values())) {
      f.heal();
      log("healed: %s", f.kind().flagValue());
    }
    partitions.clear();
    for (String id : cluster.nodeIds()) {
      if (cluster.isPaused(id)) {
        cluster.resume(id);
        log("healed: resumed %s", id);
      } else if (!cluster.isServing(id)) {
        cluster.restart(id);
        log("healed: restarted %s", id);
      }
    }
    for (int id : cluster.dataNodeIds()) {
      if (!cluster.isDataNodeRunning(id)) {
        cluster.restartDataNode(id);
        log("healed: restarted DataNode %d", id);
      }
      cluster.dataNode(id).resetFaults();
    }
  }

  private synchronized void log(String format, Object... args) {
    out.printf(
        Locale.ROOT,
        "[chaos %7d ms] %s%n",
        System.currentTimeMillis() - start,
        String.format(Locale.ROOT, format, args));
    out.flush();
  }

  /** Notes every change of the running leader in the timeline. */
  private final class LeaderWatch implements Runnable {
    private final ProcessCluster cluster;
    private volatile boolean stop;
    private String last;

    LeaderWatch(ProcessCluster cluster) {
      this.cluster = cluster;
    }

    void stop() {
      stop = true;
    }

    @Override
    public void run() {
      try {
        Poll.every(ConfigNodeWaits.CHAOS_LEADER_WATCH)
            .awaiting("the end of the run")
            .untilTrue(this::stoppedOrNoted);
      } catch (InterruptedException | TimeoutException e) {
        // interrupted at the end of the run (with no deadline set, no timeout comes)
      }
    }

    /** True once stopped; else notes the running leader if it changed, and answers false. */
    private boolean stoppedOrNoted() throws InterruptedException {
      if (stop) {
        return true;
      }
      for (String id : cluster.servingNodes()) {
        try {
          JsonNode c = cluster.cluster(id);
          if ("LEADER_RUNNING".equals(c.path("role").asText())) {
            String now = id + " (term " + c.path("term").asLong() + ")";
            if (!now.equals(last)) {
              log("leader %s", now);
              last = now;
            }
          }
        } catch (IOException notServing) {
          // starting, or just killed
        }
      }
      return false;
    }
  }
}
