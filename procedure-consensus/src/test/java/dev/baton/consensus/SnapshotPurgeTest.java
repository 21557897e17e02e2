package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Raft log behind a snapshot is purged every time, also behind a snapshot taken on request long
 * before the automatic interval: afterwards a node's log directory holds at most twice its
 * snapshot's bytes plus the one open segment.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SnapshotPurgeTest {
  /** Small segments, so the log closes many of them in a short run. */
  private static final long SEGMENT_BYTES = 16 << 10;

  /** Procedures run before the snapshot (each commits several entries). */
  private static final int PROCEDURES = 150;

  /** How much of the log a snapshot may leave besides the open segment, in snapshot sizes. */
  private static final int SNAPSHOT_FACTOR = 2;

  @TempDir Path dir;

  @Test
  void aSnapshotOnRequestPurgesTheLogBehindIt() throws Exception {
    RaftSettings raft = RaftSettings.defaults().withLogSegmentBytes(SEGMENT_BYTES);
    assertTrue(
        raft.snapshotEvery() > PROCEDURES * Work.S.values().length,
        "the run must stay below the automatic snapshot interval");
    try (TestCluster cluster = new TestCluster(dir, 3, b -> b.raft(raft)).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < PROCEDURES; i++) {
        ids.add(leader.submit(new Work("p" + i), null).get(30, TimeUnit.SECONDS));
      }
      for (long id : ids) {
        assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, id).state());
      }
      cluster.awaitSameTables();

      for (ProcedureNode<Work.Env> node : cluster.running()) {
        String id = node.nodeId();
        long before = bytesUnder(cluster.logDir(id));
        node.takeSnapshot().get(30, TimeUnit.SECONDS);
        long snapshot = Files.size(CorruptionTest.latestSnapshot(cluster.snapshotDir(id)));
        long bound = SNAPSHOT_FACTOR * snapshot + SEGMENT_BYTES;
        assertTrue(
            before > bound,
            id + ": the log (" + before + " bytes) must outgrow the bound " + bound + " first");
        await()
            .atMost(TestCluster.ELECTION_WAIT)
            .untilAsserted(
                () -> {
                  long log = bytesUnder(cluster.logDir(id));
                  assertTrue(
                      log <= bound,
                      id
                          + ": log "
                          + log
                          + " bytes after a snapshot of "
                          + snapshot
                          + " bytes (bound "
                          + bound
                          + ")");
                });
      }
    }
  }

  private static long bytesUnder(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .mapToLong(
              f -> {
                try {
                  return Files.size(f);
                } catch (IOException e) {
                  return 0; // a segment deleted by the purge while it was listed
                }
              })
          .sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
