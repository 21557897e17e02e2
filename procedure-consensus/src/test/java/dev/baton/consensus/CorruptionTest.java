package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.ProcedureState;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Bad bytes on disk or in the log are named errors; the rest of the cluster carries on. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CorruptionTest {
  @TempDir Path dir;

  @Test
  void aCorruptSnapshotStopsThatNodeWithANamedErrorWhileTheOthersKeepWorking() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      long before = leader.submit(new Work("before"), null).get(30, TimeUnit.SECONDS);
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, before).state());
      String victim = cluster.follower().nodeId();
      cluster.awaitSameTables();
      cluster.kill(victim); // Ratis snapshots the state machine when it stops
      Path snapshot = latestSnapshot(cluster.snapshotDir(victim));
      flipAByteInTheMiddle(snapshot);

      IOException e = assertThrows(IOException.class, () -> cluster.start(victim));
      CorruptSnapshotException named = findCause(e, CorruptSnapshotException.class);
      assertNotNull(named, "no CorruptSnapshotException in " + e);
      assertEquals(snapshot, named.file());
      assertTrue(e.getMessage().contains(snapshot.toString()), e.getMessage());

      // the two others are a majority and go on
      long during = leader.submit(new Work("during"), null).get(30, TimeUnit.SECONDS);
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, during).state());

      // the operator moves the named file aside; the node's own log still holds every entry, so
      // it rebuilds its table from the log and catches up with the others
      Path aside = dir.resolve("moved-aside");
      Files.createDirectories(aside);
      Files.move(snapshot, aside.resolve(snapshot.getFileName()));
      Path md5 = snapshot.resolveSibling(snapshot.getFileName() + ".md5");
      Files.move(md5, aside.resolve(md5.getFileName()));
      ProcedureNode<Work.Env> back = cluster.start(victim);
      cluster.awaitSameTables();
      assertEquals(
          ProcedureState.SUCCESS,
          back.getInfo(during).get(30, TimeUnit.SECONDS).orElseThrow().state());
    }
  }

  @Test
  void aSubmissionOfATypeTheLeaderDoesNotKnowIsRefusedBeforeTheLog() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      ProcedureRegistry bigger = Work.registry().register("Mystery", Mystery.class, Mystery::new);
      try (ProcedureClient newer = ProcedureClient.connect(cluster.peers, bigger)) {
        IOException refused =
            assertThrows(IOException.class, () -> newer.submit(new Mystery(), null));
        assertTrue(
            refused.getMessage().contains("unknown procedure type 'Mystery'"),
            refused.getMessage());
      }
      long work = cluster.follower().submit(new Work("fine"), null).get(30, TimeUnit.SECONDS);
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, work).state());
      List<ProcedureInfo> all = leader.list().get(30, TimeUnit.SECONDS);
      assertEquals(List.of(work), all.stream().map(ProcedureInfo::procId).toList(), "stored");
    }
  }

  /** A procedure type only the newer client knows. */
  static final class Mystery extends Work {
    Mystery() {
      super("mystery");
    }
  }

  static Path latestSnapshot(Path smDir) throws IOException {
    try (Stream<Path> files = Files.list(smDir)) {
      return files
          .filter(p -> p.getFileName().toString().matches("snapshot\\.\\d+_\\d+"))
          .max(Comparator.comparingLong(CorruptionTest::snapshotIndex))
          .orElseThrow(() -> new AssertionError("no snapshot in " + smDir));
    }
  }

  static long snapshotIndex(Path snapshot) {
    String name = snapshot.getFileName().toString();
    return Long.parseLong(name.substring(name.indexOf('_') + 1));
  }

  private static void flipAByteInTheMiddle(Path file) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      long at = f.length() / 2;
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ 0xff);
    }
  }

  static <T extends Throwable> T findCause(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }
}
