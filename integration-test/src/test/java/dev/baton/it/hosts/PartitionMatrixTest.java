package dev.baton.it.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.cluster.ClusterHosts;
import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.cluster.HistoryRecorder;
import dev.baton.confignode.cluster.InvariantCheck;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.history.History;
import dev.baton.confignode.history.HistoryChecker;
import dev.baton.confignode.history.HistoryViolation;
import dev.baton.confignode.hosts.NetnsHosts;
import dev.baton.confignode.hosts.PartitionKind;
import dev.baton.confignode.partition.MinorityAnswer;
import dev.baton.confignode.partition.PartitionMeasurement;
import dev.baton.confignode.partition.PartitionTrial;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every {@link PartitionKind} on one secured cluster of 5 ConfigNodes and 3 DataNodes, each on a
 * host of its own in a network namespace, healed between cases: under a steady load, a kind that
 * deposes the leader gets a new leader on the majority's side while the old one steps down and
 * stops its executor; every node of a minority answers a submission and a read of what the majority
 * acknowledged with an error within the request timeout, never with a stale answer; the majority
 * keeps acknowledging; after healing every node catches up; and every invariant holds (every
 * acknowledged submission terminal, one procedure per nonce, DataNodes equal to the metadata, no
 * DataNode accepting an old term after a new one), as do the history checker's rules over every
 * submission and read the test made. Prints a table of the measurements.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PartitionMatrixTest {
  static final int NODES = 5;
  static final int DATANODES = 3;

  /**
   * The ConfigNodes' request timeout: shorter than the default 10 s, so a minority's errors come
   * soon; the bound they are held to.
   */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(3);

  /** How long each partition lasts. */
  static final Duration HOLD = Duration.ofSeconds(4);

  /**
   * How long a leader cut off from its majority may take to step down and stop its executor: Ratis
   * steps down after an election timeout (at most 600 ms) without a majority's answers; this leaves
   * room for a starved machine.
   */
  static final Duration STEP_DOWN_BOUND = Duration.ofSeconds(10);

  /** How long procedures may take to finish once healed. */
  static final Duration FINISH = Duration.ofSeconds(90);

  private ProcessCluster cluster;
  private PartitionTrial trial;
  private final List<PartitionMeasurement> measured = new ArrayList<>();

  /** Eight JVMs starting on a busy machine may take longer than a test's default timeout. */
  @BeforeAll
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void startCluster() throws Exception {
    cluster =
        ProcessCluster.start(
            NODES,
            DATANODES,
            Boolean.getBoolean("baton.keepDir"),
            List.of("--request-timeout-ms", Long.toString(REQUEST_TIMEOUT.toMillis())),
            ClusterHosts.NETNS);
    trial =
        new PartitionTrial(
            cluster,
            new PartitionTrial.Settings(HOLD, REQUEST_TIMEOUT),
            line -> System.out.println("[partition] " + line));
  }

  @AfterEach
  void healEverything() throws Exception {
    if (cluster != null) {
      NetnsHosts hosts = cluster.netns().orElseThrow();
      if (!hosts.partitions().cuts().isEmpty()) {
        hosts.partitions().heal();
      }
    }
  }

  @AfterAll
  void stopCluster() {
    System.out.println(PartitionMeasurement.header());
    measured.forEach(m -> System.out.println(m.row()));
    if (cluster != null) {
      cluster.close();
    }
  }

  @ParameterizedTest
  @EnumSource(PartitionKind.class)
  void partitionKeepsTheInvariants(PartitionKind kind) throws Exception {
    PartitionMeasurement m = trial.run(kind);
    measured.add(m);
    System.out.println("[partition] " + m.row() + " minority " + m.minorityAnswers());

    assertTrue(m.ackedDuring() > 0, () -> "the majority acknowledged nothing: " + m.row());
    for (MinorityAnswer a : m.minorityAnswers()) {
      assertNotEquals(MinorityAnswer.Outcome.STALE, a.outcome(), a::toString);
      assertTrue(a.acceptable(PartitionTrial.answerBound(REQUEST_TIMEOUT)), a::toString);
    }
    if (kind.deposesLeader() || kind == PartitionKind.ISOLATE_NODE) {
      assertFalse(m.minorityAnswers().isEmpty(), "the minority was asked");
    }
    if (kind.deposesLeader()) {
      assertTrue(m.newLeaderElectedMs() >= 0, m::row);
      assertTrue(m.newTerm() > m.oldTerm(), m::row);
      assertTrue(m.steppedDownMs() >= 0 && m.executorStoppedMs() >= 0, m::row);
      assertTrue(m.executorStoppedMs() <= STEP_DOWN_BOUND.toMillis(), m::row);
    }
    if (kind == PartitionKind.FLAPPING) {
      assertTrue(m.flaps() > 0, "it cut again after a heal: " + m.row());
    }

    cluster.procedures().awaitAllFinished(FINISH);
    InvariantCheck.Result r =
        InvariantCheck.check(cluster.api(), dataNodes(), cluster.procedures().acknowledged(), true);
    assertTrue(r.ok(), () -> kind + ": " + r.describe());
    System.out.println(
        "[partition] "
            + kind.flagValue()
            + ": stale-term commands refused by DataNodes so far "
            + r.staleRejected());
    History history =
        cluster
            .procedures()
            .history()
            .history(HistoryRecorder.finalState(cluster.api(), dataNodes()));
    List<HistoryViolation> broken = HistoryChecker.check(history);
    assertTrue(broken.isEmpty(), () -> kind + ": " + HistoryChecker.summary(history, broken));
    long after =
        cluster
            .procedures()
            .submit("CreateDatabase", ClusterProcedures.args("name", "after-" + kind.flagValue()));
    assertEquals(
        "SUCCESS",
        cluster.procedures().awaitFinished(after, FINISH).get("state").asText(),
        "the healed cluster works");
  }

  private List<DataNodeClient> dataNodes() {
    return cluster.dataNodeIds().stream().map(cluster::dataNode).toList();
  }
}
