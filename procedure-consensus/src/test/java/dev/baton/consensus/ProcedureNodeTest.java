package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProcedureNodeTest {
  @TempDir Path dir;

  @Test
  void aFreshStorageDirectoryIsReadableByItsOwnerOnly() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 1).startAll()) {
      cluster.awaitRunningLeader();
      assertEquals(
          "rwx------",
          PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("n1"))));
    }
  }

  @Test
  void awaitReturnsTheFinishedProcedureAndNamesOneThatIsUnfinishedOrUnknown() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 1).startAll()) {
      ProcedureNode<Work.Env> node = cluster.awaitRunningLeader();
      CountDownLatch gate = cluster.world.hold("gated:PREPARE");
      long id = node.submit(new Work("gated"), null).get(30, TimeUnit.SECONDS);
      TimeoutException early =
          assertThrows(TimeoutException.class, () -> node.await(id, Duration.ofMillis(300)));
      assertTrue(early.getMessage().contains("procedure " + id), early.getMessage());
      gate.countDown();
      assertEquals(ProcedureState.SUCCESS, node.await(id, Duration.ofSeconds(30)).state());
      IOException unknown =
          assertThrows(IOException.class, () -> node.await(id + 1000, Duration.ofSeconds(5)));
      assertTrue(unknown.getMessage().contains("unknown"), unknown.getMessage());
    }
  }

  @Test
  void aFollowerAnswersAWaitWhenTheProcedureFinishesOrItsTimeoutPasses() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      ProcedureNode<Work.Env> follower = cluster.follower();
      CountDownLatch gate = cluster.world.hold("waited:PREPARE");
      long id = leader.submit(new Work("waited"), null).get(30, TimeUnit.SECONDS);

      ProcedureInfo early =
          follower
              .awaitFinished(id, Duration.ofMillis(300))
              .get(30, TimeUnit.SECONDS)
              .orElseThrow();
      assertFalse(early.finished(), early::toString);
      CompletableFuture<Optional<ProcedureInfo>> wait =
          follower.awaitFinished(id, Duration.ofSeconds(60));
      gate.countDown();
      ProcedureInfo done = wait.get(60, TimeUnit.SECONDS).orElseThrow();
      assertTrue(done.finished(), done::toString);
      assertEquals(ProcedureState.SUCCESS, done.state());
      assertEquals(0, follower.stateMachine().changes().waiterCount(), "no waiter left behind");
      assertTrue(
          follower
              .awaitFinished(id + 1000, Duration.ofSeconds(5))
              .get(30, TimeUnit.SECONDS)
              .isEmpty(),
          "an unknown procedure is empty");
    }
  }

  @Test
  void submissionOnAFollowerRunsOnTheLeaderAndEveryNodeAnswersReads() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      ProcedureNode<Work.Env> follower = cluster.follower();

      long procId = follower.submit(new Work("w1"), null).get(30, TimeUnit.SECONDS);

      ProcedureInfo done = awaitFinished(follower, procId);
      assertEquals(ProcedureState.SUCCESS, done.state());
      List<World.Step> steps = cluster.world.steps("w1");
      assertEquals(
          List.of("PREPARE", "APPLY", "COMMIT"), steps.stream().map(World.Step::state).toList());
      for (World.Step s : steps) {
        assertEquals(leader.nodeId(), s.node());
        assertEquals(leader.term(), s.term());
      }
      for (ProcedureNode<Work.Env> n : cluster.running()) {
        ProcedureInfo info = n.getInfo(procId).get(30, TimeUnit.SECONDS).orElseThrow();
        assertEquals(ProcedureState.SUCCESS, info.state(), "as read on " + n.nodeId());
      }
    }
  }

  @Test
  void aRepeatedNonceReturnsTheFirstId() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      NonceKey nonce = new NonceKey(7, 42);
      long first = leader.submit(new Work("a"), nonce).get(30, TimeUnit.SECONDS);
      long again = cluster.follower().submit(new Work("a"), nonce).get(30, TimeUnit.SECONDS);
      long other = leader.submit(new Work("b"), new NonceKey(7, 43)).get(30, TimeUnit.SECONDS);
      assertEquals(first, again);
      assertNotEquals(first, other);
    }
  }

  @Test
  void metadataWritesAreFencedByTermAndReadableOnEveryNode() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      LeaderContext context = leader.leaderContext().orElseThrow();
      leader.metadata().write(context, Map.of("db/a", bytes("1"), "db/b", bytes("2")), List.of());
      leader.metadata().write(context, Map.of(), List.of("db/b"));

      LeaderContext stale = new LeaderContext(leader.nodeId(), context.term() - 1);
      long rejectedBefore = leader.rejectedWriteCount();
      assertThrows(
          NotLeaderException.class,
          () -> leader.metadata().write(stale, Map.of("db/c", bytes("3")), List.of()));
      assertEquals(rejectedBefore + 1, leader.rejectedWriteCount());

      for (ProcedureNode<Work.Env> n : cluster.running()) {
        SortedMap<String, byte[]> dbs = n.metadata().read("db/").get(30, TimeUnit.SECONDS);
        assertEquals(List.of("db/a"), List.copyOf(dbs.keySet()), "as read on " + n.nodeId());
        assertArrayEquals(bytes("1"), dbs.get("db/a"));
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aSingleNodeClusterLeadsItselfAndRunsProcedures() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 1).startAll()) {
      ProcedureNode<Work.Env> only = cluster.awaitRunningLeader();
      long procId = only.submit(new Work("alone"), null).get(30, TimeUnit.SECONDS);
      assertEquals(ProcedureState.SUCCESS, awaitFinished(only, procId).state());
    }
  }

  /**
   * Polls a node until the procedure finished. A read that fails (an election on a busy machine) is
   * polled again; one that never succeeds fails the wait.
   */
  static ProcedureInfo awaitFinished(ProcedureNode<Work.Env> node, long procId) {
    return org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptionsInstanceOf(java.util.concurrent.ExecutionException.class)
        .until(
            () -> node.getInfo(procId).get(30, TimeUnit.SECONDS).orElse(null),
            info -> info != null && info.finished());
  }
}
