package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshots are written by a background writer, not on Ratis' apply thread: procedures commit and
 * complete while a write is parked, and Ratis only hears of (and purges the log behind) snapshots
 * that are durable.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BackgroundSnapshotTest {
  /** Applied entries between snapshots: small, so a handful of procedures trigger one. */
  static final long SNAPSHOT_EVERY = 4;

  /** Procedures run while the writer is parked: several snapshot intervals' worth of entries. */
  static final int WHILE_PARKED = 12;

  @TempDir Path dir;

  private static RaftSettings settings() {
    return new RaftSettings(
        RaftSettings.DEFAULT_ELECTION_TIMEOUT_MIN,
        RaftSettings.DEFAULT_ELECTION_TIMEOUT_MAX,
        RaftSettings.DEFAULT_REQUEST_TIMEOUT,
        SNAPSHOT_EVERY,
        SnapshotTest.SEGMENT_BYTES);
  }

  @Test
  void proceduresCompleteWhileTheWriterIsParkedAndExplicitAndRestartedSnapshotsAreDurable()
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3, b -> b.raft(settings())).startAll();
        WriterGate gate = WriterGate.parking()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      gate.on(leader);
      runUntil(leader, gate::isParked);
      long parkedIndex = gate.parkedAt().getIndex();
      long durable = durableIndex(leader);
      assertTrue(durable < parkedIndex, "durable " + durable + ", parked " + parkedIndex);

      for (int i = 0; i < WHILE_PARKED; i++) {
        run(leader, "parked-" + i);
      }
      assertTrue(gate.isParked(), "the write was still parked while the procedures ran");
      assertTrue(
          leader.stateMachine().appliedIndex() > parkedIndex + SNAPSHOT_EVERY,
          "applied " + leader.stateMachine().appliedIndex() + " past snapshot " + parkedIndex);
      // Ratis was told of no snapshot past the durable one, so the log behind it is kept
      assertTrue(
          logStartIndex(leader) <= durable + 1,
          "log starts at " + logStartIndex(leader) + ", durable snapshot " + durable);
      assertFalse(
          Files.exists(snapshotFile(cluster, leader, gate.parkedAt().getTerm(), parkedIndex)));

      // an explicit request waits for the parked write, then writes a fresh one
      long appliedAtRequest = leader.stateMachine().appliedIndex();
      CompletableFuture<Long> explicit = leader.takeSnapshot();
      gate.release();
      long index = explicit.get(30, TimeUnit.SECONDS);
      assertTrue(index >= appliedAtRequest, "snapshot " + index + " < " + appliedAtRequest);
      assertEquals(index, durableIndex(leader));
      Path newest = CorruptionTest.latestSnapshot(cluster.snapshotDir(leader.nodeId()));
      assertEquals(index, CorruptionTest.snapshotIndex(newest));
      assertTrue(Files.exists(newest.resolveSibling(newest.getFileName() + ".md5")));
      assertTrue(
          Files.exists(snapshotFile(cluster, leader, gate.parkedAt().getTerm(), parkedIndex)),
          "the released write finished too");

      // a restarted node loads the newest snapshot written in the background
      String id = leader.nodeId();
      run(leader, "last");
      cluster.awaitSameTables();
      cluster.kill(id);
      long onDisk =
          CorruptionTest.snapshotIndex(CorruptionTest.latestSnapshot(cluster.snapshotDir(id)));
      assertTrue(onDisk >= index, "snapshot on disk " + onDisk);
      ProcedureNode<Work.Env> back = cluster.start(id);
      SnapshotInfo loaded = back.stateMachine().getLatestSnapshot();
      assertEquals(onDisk, loaded.getIndex());
      cluster.awaitSameTables();
      ProcedureNode<Work.Env> next = cluster.awaitRunningLeader();
      run(next, "after-restart");
      cluster.awaitSameTables();
    }
  }

  @Test
  void aFailedWriteKeepsThePreviousSnapshotAndTheLogAndIsRetriedAfterABackoff() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3, b -> b.raft(settings())).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      WriterGate gate = WriterGate.failing(1).on(leader);
      runUntil(leader, () -> !gate.attempts.isEmpty());
      WriterGate.Attempt failed = gate.attempts.get(0);
      await().atMost(TestCluster.ELECTION_WAIT).until(() -> !Files.exists(failed.tmp()));
      long durableBefore = durableIndex(leader);
      assertTrue(
          durableBefore < failed.at().getIndex(),
          "the previous snapshot " + durableBefore + " stays the latest");
      assertFalse(
          Files.exists(
              snapshotFile(cluster, leader, failed.at().getTerm(), failed.at().getIndex())));
      assertTrue(logStartIndex(leader) <= durableBefore + 1, "log start " + logStartIndex(leader));

      runUntil(leader, () -> gate.attempts.size() >= 2);
      WriterGate.Attempt retried = gate.attempts.get(1);
      assertTrue(
          retried.nanos() - failed.nanos() >= ConsensusWaits.SNAPSHOT_RETRY_BACKOFF.toNanos(),
          "retried after " + (retried.nanos() - failed.nanos()) / 1_000_000 + " ms");
      await()
          .atMost(TestCluster.ELECTION_WAIT)
          .until(() -> durableIndex(leader) >= retried.at().getIndex());
      assertTrue(
          Files.exists(
              snapshotFile(cluster, leader, retried.at().getTerm(), retried.at().getIndex())));
    }
  }

  /**
   * What Ratis does when a follower installs the leader's snapshot (pause, the leader's file into
   * the state machine directory, reinitialize), done while the follower's writer holds an older
   * image: the older write is cancelled, and the installed snapshot stays the latest.
   */
  @Test
  void installingALeadersSnapshotWhileAnOlderWriteIsInFlightKeepsTheInstalledOne()
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3, b -> b.raft(settings())).startAll();
        WriterGate gate = WriterGate.parking()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      ProcedureNode<Work.Env> follower = cluster.follower();
      gate.on(follower);
      runUntil(leader, gate::isParked);
      long older = gate.parkedAt().getIndex();
      run(leader, "more");
      cluster.awaitSameTables();
      await()
          .atMost(TestCluster.ELECTION_WAIT)
          .until(
              () -> follower.stateMachine().appliedIndex() == leader.stateMachine().appliedIndex());
      long installed = leader.takeSnapshot().get(30, TimeUnit.SECONDS);
      assertEquals(follower.stateMachine().appliedIndex(), installed);
      assertTrue(installed > older, "installed " + installed + ", older " + older);

      ProcedureStateMachine sm = follower.stateMachine();
      sm.pause();
      assertTrue(gate.sawInterrupt(), "the older write was cancelled");
      Path leaderFile = CorruptionTest.latestSnapshot(cluster.snapshotDir(leader.nodeId()));
      Path smDir = cluster.snapshotDir(follower.nodeId());
      for (String suffix : new String[] {"", ".md5"}) {
        Files.copy(
            leaderFile.resolveSibling(leaderFile.getFileName() + suffix),
            smDir.resolve(leaderFile.getFileName() + suffix),
            StandardCopyOption.REPLACE_EXISTING);
      }
      sm.reinitialize();
      assertEquals(installed, sm.getLatestSnapshot().getIndex());
      assertEquals(installed, CorruptionTest.snapshotIndex(CorruptionTest.latestSnapshot(smDir)));
      assertFalse(Files.exists(snapshotFile(cluster, follower, gate.parkedAt().getTerm(), older)));

      run(leader, "after-install");
      cluster.awaitSameTables();
      assertTrue(CorruptionTest.snapshotIndex(CorruptionTest.latestSnapshot(smDir)) >= installed);
      assertTrue(sm.getLatestSnapshot().getIndex() >= installed);
    }
  }

  private static void run(ProcedureNode<Work.Env> node, String name) throws Exception {
    long id = node.submit(new Work(name), null).get(30, TimeUnit.SECONDS);
    assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(node, id).state());
  }

  /** Runs procedures one after another until {@code done} holds. */
  private static void runUntil(
      ProcedureNode<Work.Env> node, java.util.concurrent.Callable<Boolean> done) {
    int[] n = {0};
    await()
        .atMost(TestCluster.ELECTION_WAIT.multipliedBy(2))
        .until(
            () -> {
              run(node, "until-" + n[0]++);
              return done.call();
            });
  }

  private static long durableIndex(ProcedureNode<Work.Env> node) {
    SnapshotInfo latest = node.stateMachine().getLatestSnapshot();
    return latest == null ? -1 : latest.getIndex();
  }

  private static long logStartIndex(ProcedureNode<Work.Env> node) {
    return node.division().orElseThrow().getRaftLog().getStartIndex();
  }

  private static Path snapshotFile(
      TestCluster cluster, ProcedureNode<Work.Env> node, long term, long index) throws IOException {
    return cluster.snapshotDir(node.nodeId()).resolve("snapshot." + term + "_" + index);
  }
}
