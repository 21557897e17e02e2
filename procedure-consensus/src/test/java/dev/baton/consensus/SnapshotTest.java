package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshots taken after every entry while procedures run; the log is purged behind them, so a
 * follower that was down must install a snapshot from the leader to catch up.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SnapshotTest {
  /** Small segments, so closed segments exist and the log can be purged behind a snapshot. */
  static final long SEGMENT_BYTES = 16 * 1024;

  /**
   * Enough writes to fill and close segments past the lagging node's index, also when group commit
   * packs many of them into one entry.
   */
  static final int PROCEDURES = 100;

  /**
   * How long the running nodes may take to snapshot and purge past the lagging node: a snapshot
   * after every entry is slow on a loaded machine, and the purge follows the last one.
   */
  static final Duration PURGE_WAIT = Duration.ofSeconds(75);

  /** How often the purge is checked while more writes are made to close the open segment. */
  static final Duration PURGE_POLL = Duration.ofMillis(200);

  @TempDir Path dir;

  @Test
  void aFollowerBehindThePurgedLogInstallsTheLeadersSnapshotAndCatchesUp() throws Exception {
    RaftSettings settings =
        new RaftSettings(
            RaftSettings.DEFAULT_ELECTION_TIMEOUT_MIN,
            RaftSettings.DEFAULT_ELECTION_TIMEOUT_MAX,
            RaftSettings.DEFAULT_REQUEST_TIMEOUT,
            1,
            SEGMENT_BYTES);
    try (TestCluster cluster = new TestCluster(dir, 3, b -> b.raft(settings)).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      ProcedureNode<Work.Env> lagging = cluster.follower();
      String laggingId = lagging.nodeId();
      long first = leader.submit(new Work("first"), null).get(30, TimeUnit.SECONDS);
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, first).state());
      cluster.awaitSameTables();
      long laggingApplied = lagging.stateMachine().getLastAppliedTermIndex().getIndex();
      cluster.kill(laggingId);

      List<CompletableFuture<Long>> submitted = new ArrayList<>();
      for (int i = 0; i < PROCEDURES; i++) {
        submitted.add(leader.submit(new Work("p" + i), null));
      }
      List<Long> ids = new ArrayList<>();
      for (CompletableFuture<Long> f : submitted) {
        ids.add(f.get(30, TimeUnit.SECONDS));
      }
      for (long id : ids) {
        assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, id).state());
      }

      // the nodes snapshotted as they went and purged their logs past what the lagging node has:
      // no node can send it the entries it missed. Only closed segments are purged, and only after
      // a snapshot: when group commit packed the writes into few entries, the segment holding the
      // lagging node's next entry may still be open, so more writes follow until it is purged
      AtomicInteger more = new AtomicInteger();
      await()
          .atMost(PURGE_WAIT)
          .pollInterval(PURGE_POLL)
          .until(
              () -> {
                if (cluster.running().stream()
                    .allMatch(n -> logStartIndex(n) > laggingApplied + 1)) {
                  return true;
                }
                leader
                    .submit(new Work("more" + more.incrementAndGet()), null)
                    .get(30, TimeUnit.SECONDS);
                return false;
              });
      long newest = newestSnapshotIndex(cluster.snapshotDir(leader.nodeId()));
      assertTrue(newest > laggingApplied + 1, "leader snapshot at " + newest);
      assertTrue(Files.exists(snapshotFile(cluster, leader.nodeId(), newest, ".md5")));

      ProcedureNode<Work.Env> back = cluster.start(laggingId);
      cluster.awaitSameTables();
      // it can only have caught up through a snapshot: the entries it missed are gone everywhere
      long installed = newestSnapshotIndex(cluster.snapshotDir(laggingId));
      assertTrue(installed > laggingApplied + 1, laggingId + " holds snapshot " + installed);
      for (long id : ids) {
        assertEquals(
            ProcedureState.SUCCESS,
            back.getInfo(id).get(30, TimeUnit.SECONDS).orElseThrow().state());
      }
      // and it keeps applying new entries after the installation
      long after = leader.submit(new Work("after"), null).get(30, TimeUnit.SECONDS);
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(back, after).state());
      cluster.awaitSameTables();
    }
  }

  private static long logStartIndex(ProcedureNode<Work.Env> node) {
    return node.division().orElseThrow().getRaftLog().getStartIndex();
  }

  private static long newestSnapshotIndex(Path smDir) throws IOException {
    return CorruptionTest.snapshotIndex(CorruptionTest.latestSnapshot(smDir));
  }

  private static Path snapshotFile(TestCluster cluster, String node, long index, String suffix)
      throws IOException {
    try (Stream<Path> files = Files.list(cluster.snapshotDir(node))) {
      return files
          .filter(p -> p.getFileName().toString().endsWith("_" + index + suffix))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no snapshot file for index " + index));
    }
  }
}
