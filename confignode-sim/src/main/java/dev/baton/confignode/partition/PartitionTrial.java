package dev.baton.confignode.partition;

import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.cluster.HistoryRecorder;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.datanode.DataNodeException;
import dev.baton.confignode.datanode.LedgerEntry;
import dev.baton.confignode.hosts.NetnsHosts;
import dev.baton.confignode.hosts.NetworkFault;
import dev.baton.confignode.hosts.PartitionKind;
import dev.baton.confignode.hosts.PartitionTargets;
import dev.baton.confignode.waits.ConfigNodeWaits;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One network partition on a running cluster on hosts in network namespaces, measured: a steady
 * load ({@link PartitionLoad}) through the nodes on the majority's side; the partition laid out
 * around the current leader ({@link NetworkFault}); for a kind that deposes the leader, the wait
 * for a new leader and for the old one to step down and stop its executor ({@link StepDownWatch});
 * a submission and a linearizable read sent straight to each node of the minority, which must
 * answer with an error within {@link #answerBound} and never with a stale answer (both recorded in
 * the cluster's history for the history checker); the partition held for {@link Settings#hold};
 * then healed (also when anything failed), the time until every ConfigNode has applied what any had
 * applied at the heal measured (the load still running), and the minority's submissions resolved
 * with their nonces. The caller checks the invariants.
 */
public final class PartitionTrial {
  /** How long a partition lasts by default, from the cut. */
  public static final Duration DEFAULT_HOLD = Duration.ofSeconds(5);

  /** How much later than its request timeout a minority node may answer (HTTP, scheduling). */
  public static final Duration ANSWER_SLACK = Duration.ofSeconds(2);

  /** The longest a minority node may take to answer: its request timeout and the slack. */
  public static Duration answerBound(Duration requestTimeout) {
    return requestTimeout.plus(ANSWER_SLACK);
  }

  /** The metric of a ConfigNode's applied log index. */
  static final String APPLIED_INDEX = "baton_raft_applied_index";

  private static final int HTTP_OK = 200;
  private static final int HTTP_NOT_FOUND = 404;

  /** The procedure a minority node is asked to take (never taken: it has no majority). */
  static final String MINORITY_TYPE = "CreateDatabase";

  /**
   * Settings.
   *
   * @param hold how long the partition lasts, from the cut (longer if a new leader takes longer)
   * @param requestTimeout the ConfigNodes' request timeout: a minority node must answer within it
   */
  public record Settings(Duration hold, Duration requestTimeout) {}

  private final ProcessCluster cluster;
  private final NetnsHosts hosts;
  private final Settings settings;
  private final Consumer<String> progress;

  /**
   * @param progress told what happens, one line at a time
   * @throws IllegalArgumentException if the cluster does not run on hosts in network namespaces
   */
  public PartitionTrial(ProcessCluster cluster, Settings settings, Consumer<String> progress) {
    this.cluster = cluster;
    this.hosts =
        cluster
            .netns()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "partitions need hosts in network namespaces (hosts netns)"));
    this.settings = settings;
    this.progress = progress;
  }

  /** Who a partition is laid out around now: the leader, the others in id order, DataNodes. */
  public static PartitionTargets targetsAround(ProcessCluster cluster, String leader) {
    List<String> followers =
        cluster.nodeIds().stream().filter(id -> !id.equals(leader)).sorted().toList();
    List<String> dataNodes =
        cluster.dataNodeIds().stream().map(PartitionTrial::dataNodeHost).toList();
    return new PartitionTargets(leader, followers, dataNodes);
  }

  /** The host of DataNode {@code id}. */
  static String dataNodeHost(int id) {
    return "dn" + id;
  }

  /** Runs one partition of {@code kind} and measures it. */
  public PartitionMeasurement run(PartitionKind kind) throws IOException, InterruptedException {
    String leader = cluster.leader();
    long oldTerm = cluster.term(leader);
    PartitionTargets targets = targetsAround(cluster, leader);
    List<String> minority = NetworkFault.minorityOf(kind, targets);
    List<String> majoritySide =
        cluster.nodeIds().stream().filter(id -> !minority.contains(id)).map(cluster::http).toList();
    PartitionLoad load =
        new PartitionLoad(cluster, cluster.client(majoritySide), "p-" + kind.flagValue() + "-");
    load.start();
    StepDownWatch watch = kind.deposesLeader() ? StepDownWatch.start(cluster, leader) : null;
    AtomicLong electedAt = new AtomicLong();
    long runningAt = 0;
    List<MinorityAnswer> answers = new ArrayList<>();
    Map<Long, String> minorityNonces = new HashMap<>();
    long cutAt = System.currentTimeMillis();
    NetworkFault fault;
    try {
      fault = NetworkFault.start(kind, targets, hosts.partitions());
    } catch (RuntimeException e) {
      load.stop();
      if (watch != null) {
        watch.stop();
      }
      throw e;
    }
    progress.accept("cut " + fault.describe());
    long healAt;
    boolean held = false;
    try {
      if (kind.deposesLeader()) {
        String next =
            cluster.awaitLeader(
                Set.copyOf(minority),
                oldTerm,
                () -> electedAt.compareAndSet(0, System.currentTimeMillis()));
        runningAt = cluster.cluster(next).path("executor").path("lastRecoveryRunningAt").asLong();
        progress.accept("new leader " + next + " on the majority's side");
        ConfigNodeWaits.clusterPoll(
                ProcessCluster.CLUSTER_WAIT, "the old leader " + leader + " stepping down")
            .untilTrue(watch::done);
      }
      if (!minority.isEmpty()) {
        long acked =
            ConfigNodeWaits.clusterPoll(ProcessCluster.CLUSTER_WAIT, "a submission acknowledged")
                .until(() -> load.firstAckAfter(cutAt).orElse(null))
                .procId();
        answers.addAll(askMinority(minority, acked, minorityNonces));
        progress.accept("minority answers: " + answers);
      }
      long until = cutAt + settings.hold().toMillis();
      ConfigNodeWaits.clusterPoll(settings.hold().plus(ProcessCluster.CLUSTER_WAIT), "the hold")
          .untilTrue(() -> System.currentTimeMillis() >= until);
      held = true;
    } finally {
      healAt = System.currentTimeMillis();
      try {
        fault.heal();
      } finally {
        if (watch != null) {
          watch.stop();
        }
        if (!held) {
          stopAfterFailure(load);
        }
      }
    }
    progress.accept("healed after " + (healAt - cutAt) + " ms");
    long caughtUpAt;
    try {
      caughtUpAt = awaitCaughtUp();
    } finally {
      load.stop();
    }
    for (Map.Entry<Long, String> n : minorityNonces.entrySet()) {
      cluster
          .procedures()
          .submit(MINORITY_TYPE, ClusterProcedures.args("name", n.getValue()), n.getKey());
    }
    String newLeader = cluster.leader();
    long newTerm = cluster.term(newLeader);
    long firstStepAt = firstStepAfter(oldTerm);
    return new PartitionMeasurement(
        kind,
        fault.describe(),
        leader,
        oldTerm,
        newLeader,
        newTerm,
        since(cutAt, electedAt.get()),
        since(cutAt, runningAt),
        since(cutAt, firstStepAt),
        watch == null ? PartitionMeasurement.NONE : since(cutAt, watch.steppedDownAt()),
        watch == null ? PartitionMeasurement.NONE : since(cutAt, watch.executorStoppedAt()),
        healAt - cutAt,
        load.ackedBetween(cutAt, healAt),
        caughtUpAt == 0 ? PartitionMeasurement.NONE : caughtUpAt - healAt,
        fault.flaps(),
        answers);
  }

  /**
   * Stops the load of a trial that failed, so that it does not go on submitting into the next trial
   * (whose checks would count its unacknowledged submission); what it says goes to the progress,
   * the trial's own failure is the one thrown.
   */
  private void stopAfterFailure(PartitionLoad load) {
    try {
      load.stop();
    } catch (IOException e) {
      progress.accept("the load of the failed trial ended with: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static long since(long start, long at) {
    return at <= 0 ? PartitionMeasurement.NONE : at - start;
  }

  /**
   * A submission and a read of {@code ackedProcId} (acknowledged by the majority after the cut)
   * sent straight to each minority node, all at once; their answers.
   */
  private List<MinorityAnswer> askMinority(
      List<String> minority, long ackedProcId, Map<Long, String> nonces)
      throws IOException, InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(minority.size() * 2);
    HistoryRecorder history = cluster.procedures().history();
    try {
      List<Future<MinorityAnswer>> asked = new ArrayList<>();
      for (String node : minority) {
        NodeApiClient direct = cluster.client(cluster.http(node));
        long nonce = cluster.procedures().nextNonce();
        String name = "minority-" + node + "-" + nonce;
        nonces.put(nonce, name);
        asked.add(
            pool.submit(
                () ->
                    timed(
                        node,
                        "submit",
                        () ->
                            history.submit(
                                node,
                                nonce,
                                MINORITY_TYPE,
                                ClusterProcedures.args("name", name),
                                () ->
                                    direct.submit(
                                        MINORITY_TYPE,
                                        ClusterProcedures.args("name", name),
                                        ClusterProcedures.NONCE_GROUP,
                                        nonce)),
                        false)));
        asked.add(
            pool.submit(
                () ->
                    timed(
                        node,
                        "read of procedure " + ackedProcId,
                        () ->
                            history.readProcedure(
                                node,
                                ackedProcId,
                                () ->
                                    direct.call(
                                        cluster.http(node),
                                        "GET",
                                        "/api/procedures/" + ackedProcId,
                                        null)),
                        true)));
      }
      List<MinorityAnswer> out = new ArrayList<>();
      for (Future<MinorityAnswer> f : asked) {
        out.add(f.get());
      }
      return out;
    } catch (ExecutionException e) {
      throw new IOException("asking the minority failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** A call that may fail; what it throws. */
  private interface Call {
    Object call() throws IOException, InterruptedException;
  }

  /**
   * Times one request to a minority node: an error is the expected answer; for a read, not finding
   * what the majority acknowledged is a stale answer.
   */
  private static MinorityAnswer timed(String node, String what, Call call, boolean read)
      throws InterruptedException {
    long start = System.nanoTime();
    MinorityAnswer.Outcome outcome;
    int status;
    try {
      call.call();
      outcome = MinorityAnswer.Outcome.ANSWERED;
      status = HTTP_OK;
    } catch (NodeApiClient.ApiException e) {
      status = e.status();
      outcome =
          read && status == HTTP_NOT_FOUND
              ? MinorityAnswer.Outcome.STALE
              : MinorityAnswer.Outcome.ERROR;
    } catch (IOException e) {
      status = 0;
      outcome = MinorityAnswer.Outcome.ERROR;
    }
    return new MinorityAnswer(
        node, what, outcome, status, Duration.ofNanos(System.nanoTime() - start).toMillis());
  }

  /**
   * When every ConfigNode had applied what any had applied at the heal (epoch ms), or 0 if a
   * majority did but some node did not within the wait: that is reported as a finding, not a
   * failure, since what the cluster guarantees holds without it. Every live ConfigNode then writes
   * a thread dump into its log, and the finding says what each node sees. A majority that does not
   * catch up fails the trial.
   */
  private long awaitCaughtUp() throws IOException, InterruptedException {
    long target = 0;
    for (String id : cluster.nodeIds()) {
      target = Math.max(target, appliedIndex(id));
    }
    long wanted = target;
    int majority = cluster.nodeIds().size() / 2 + 1;
    ConfigNodeWaits.clusterPoll(ProcessCluster.CLUSTER_WAIT, "a majority applied " + wanted)
        .untilTrue(() -> caughtUp(wanted).size() >= majority);
    try {
      ConfigNodeWaits.clusterPoll(ProcessCluster.CLUSTER_WAIT, "every node applied " + wanted)
          .untilTrue(() -> caughtUp(wanted).size() == cluster.nodeIds().size());
    } catch (IOException lagging) {
      List<String> behind = new ArrayList<>(cluster.nodeIds());
      behind.removeAll(caughtUp(wanted));
      progress.accept(
          "FINDING: "
              + behind
              + " had not applied index "
              + wanted
              + " "
              + ProcessCluster.CLUSTER_WAIT.toSeconds()
              + " s after the heal, while a majority had (a liveness problem, reported: "
              + lagging.getMessage()
              + "); cluster now: "
              + cluster.describeStuck());
      return 0;
    }
    return System.currentTimeMillis();
  }

  /** The ConfigNodes that have applied {@code index}. */
  private List<String> caughtUp(long index) throws IOException, InterruptedException {
    List<String> out = new ArrayList<>();
    for (String id : cluster.nodeIds()) {
      if (appliedIndex(id) >= index) {
        out.add(id);
      }
    }
    return out;
  }

  private long appliedIndex(String nodeId) throws IOException, InterruptedException {
    Double v =
        cluster.client(cluster.http(nodeId)).metrics(cluster.http(nodeId)).get(APPLIED_INDEX);
    if (v == null) {
      throw new IOException("no " + APPLIED_INDEX + " in the metrics of " + nodeId);
    }
    return v.longValue();
  }

  /** When a DataNode first accepted a command of a term above {@code term} (epoch ms), or 0. */
  private long firstStepAfter(long term) throws IOException, InterruptedException {
    long first = Long.MAX_VALUE;
    for (int id : cluster.dataNodeIds()) {
      try {
        for (LedgerEntry e : cluster.dataNode(id).state().ledger()) {
          if (e.term() > term) {
            first = Math.min(first, e.time());
          }
        }
      } catch (DataNodeException e) {
        throw new IOException("DataNode " + id + ": " + e.getMessage(), e);
      }
    }
    return first == Long.MAX_VALUE ? 0 : first;
  }
}
