package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Losing a minority is invisible to clients; losing the majority is a clear, bounded error. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuorumLossTest {

  /** Short, so the test is quick; the failure must come within it plus a margin. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);

  /** Slack for a busy 2-core machine; far below "hangs". */
  static final Duration MARGIN = Duration.ofSeconds(4);

  @TempDir Path dir;

  @Test
  void withoutAMajorityCallsFailClearlyWithinTheRequestTimeoutAndEverythingFinishesAfter()
      throws Exception {
    try (TestCluster cluster =
        new TestCluster(dir, 3, b -> b.requestTimeout(REQUEST_TIMEOUT)).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      CountDownLatch gate = cluster.world.hold("held:APPLY");
      long held = leader.submit(new Work("held"), new NonceKey(1, 1)).get(30, TimeUnit.SECONDS);
      assertTrue(cluster.world.reached.get("held:APPLY").await(30, TimeUnit.SECONDS));

      // 1. both followers die: the leader is alone, on the local-submit path
      List<String> followers =
          cluster.running().stream()
              .map(ProcedureNode::nodeId)
              .filter(id -> !id.equals(leader.nodeId()))
              .toList();
      followers.forEach(cluster::kill);
      NonceKey lonely = new NonceKey(1, 2);
      assertFailsClearly(leader.submit(new Work("lonely"), lonely), "submit on the lone leader");
      assertFailsClearly(leader.getInfo(held), "read on the lone leader");

      gate.countDown();
      for (String id : followers) {
        cluster.start(id);
      }
      ProcedureNode<Work.Env> second = cluster.awaitRunningLeader();

      // 2. the leader and one follower die: the survivor is a follower, on the client path
      String survivorId =
          cluster.running().stream()
              .map(ProcedureNode::nodeId)
              .filter(id -> !id.equals(second.nodeId()))
              .findFirst()
              .orElseThrow();
      List<String> dead =
          cluster.running().stream()
              .map(ProcedureNode::nodeId)
              .filter(id -> !id.equals(survivorId))
              .toList();
      dead.forEach(cluster::kill);
      ProcedureNode<Work.Env> survivor = cluster.node(survivorId);
      NonceKey orphan = new NonceKey(1, 3);
      assertFailsClearly(survivor.submit(new Work("orphan"), orphan), "submit on a lone follower");
      assertFailsClearly(survivor.getInfo(held), "read on a lone follower");
      try (ProcedureClient client =
          ProcedureClient.connect(
              cluster.peers,
              Work.registry(),
              RaftSettings.defaults().withRequestTimeout(REQUEST_TIMEOUT))) {
        long start = System.nanoTime();
        IOException e =
            assertThrows(IOException.class, () -> client.submit(new Work("orphan"), orphan));
        assertTrue(
            Duration.ofNanos(System.nanoTime() - start).compareTo(REQUEST_TIMEOUT.plus(MARGIN))
                < 0);
        assertNoMajorityMessage(e);
      }

      for (String id : dead) {
        cluster.start(id);
      }
      ProcedureNode<Work.Env> third = cluster.awaitRunningLeader();
      // the failed submissions may or may not have been committed; retrying with their nonces
      // gives each exactly one procedure
      long lonelyId = TestCluster.submitRetrying(third, () -> new Work("lonely"), lonely);
      long orphanId = TestCluster.submitRetrying(survivor, () -> new Work("orphan"), orphan);
      for (long id : List.of(held, lonelyId, orphanId)) {
        assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(survivor, id).state());
      }
      for (String name : List.of("held", "lonely", "orphan")) {
        assertStepsInOrder(name, cluster.world.steps(name));
      }
    }
  }

  /**
   * The steps ran in order, each once, except that a step whose persist could not commit (no
   * majority, or its leader lost leadership first) may run once more, in a later term.
   */
  private static void assertStepsInOrder(String name, List<World.Step> steps) {
    List<String> states = new ArrayList<>();
    for (int i = 0; i < steps.size(); i++) {
      if (i > 0 && steps.get(i).state().equals(steps.get(i - 1).state())) {
        assertTrue(
            steps.get(i).term() > steps.get(i - 1).term(),
            name + " re-ran a step without a leader change: " + steps);
      } else {
        states.add(steps.get(i).state());
      }
    }
    assertEquals(List.of("PREPARE", "APPLY", "COMMIT"), states, name + ": " + steps);
  }

  @Test
  void aFollowerThatWasDownCatchesUpAndAnswersLikeTheLeader() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      List<Long> ids = new ArrayList<>();
      ids.add(leader.submit(new Work("before"), null).get(30, TimeUnit.SECONDS));
      String lagging = cluster.follower().nodeId();
      cluster.kill(lagging);
      ProcedureNode<Work.Env> other =
          cluster.running().stream().filter(n -> n != leader).findFirst().orElseThrow();
      for (int i = 0; i < 20; i++) {
        ProcedureNode<Work.Env> via = i % 2 == 0 ? leader : other;
        ids.add(via.submit(new Work("while-down-" + i), null).get(30, TimeUnit.SECONDS));
      }
      for (long id : ids) {
        assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(other, id).state());
      }

      ProcedureNode<Work.Env> back = cluster.start(lagging);
      cluster.awaitSameTables();
      assertEquals(ids.size(), back.stateMachine().table().size());
      for (long id : ids) {
        ProcedureInfo there = back.getInfo(id).get(30, TimeUnit.SECONDS).orElseThrow();
        ProcedureInfo here = leader.getInfo(id).get(30, TimeUnit.SECONDS).orElseThrow();
        assertEquals(ProcedureState.SUCCESS, there.state());
        assertEquals(
            List.of(here.type(), here.stepName(), here.lastUpdate(), here.rootProcId()),
            List.of(there.type(), there.stepName(), there.lastUpdate(), there.rootProcId()));
      }
      // and it takes part again: with the other follower gone, it forms the majority
      cluster.kill(other.nodeId());
      long last = leader.submit(new Work("after"), null).get(30, TimeUnit.SECONDS);
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(back, last).state());
    }
  }

  @Test
  void aClientThatGoesOnWritingWithoutAMajorityIsToldAtOnceInsteadOfBlocked() throws Exception {
    int window = 2;
    try (TestCluster cluster =
        new TestCluster(dir, 3, b -> b.requestTimeout(REQUEST_TIMEOUT)).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      List<String> followers =
          cluster.running().stream()
              .map(ProcedureNode::nodeId)
              .filter(id -> !id.equals(leader.nodeId()))
              .toList();
      try (ProcedureClient client =
          new ProcedureClient(
              ProcedureGroup.of(ProcedureNode.DEFAULT_CLUSTER_ID, cluster.peers),
              Work.registry(),
              RaftSettings.defaults().withRequestTimeout(REQUEST_TIMEOUT),
              RaftSecurity.plaintext(),
              window)) {
        followers.forEach(cluster::kill);
        for (int i = 0; i < window; i++) {
          NonceKey nonce = new NonceKey(2, i);
          // times out; Ratis keeps retrying it in the background, holding its place
          assertNoMajorityMessage(
              assertThrows(IOException.class, () -> client.submit(new Work("unanswered"), nonce)));
        }

        long start = System.nanoTime();
        IOException full =
            assertThrows(
                IOException.class, () -> client.submit(new Work("one more"), new NonceKey(2, 9)));
        assertTrue(
            Duration.ofNanos(System.nanoTime() - start).compareTo(REQUEST_TIMEOUT) < 0,
            "refused at once, not after another timeout (or never, blocked in Ratis)");
        assertTrue(full.getMessage().contains("still unanswered"), full.getMessage());
        assertNoMajorityMessage(full);

        for (String id : followers) {
          cluster.start(id);
        }
        cluster.awaitRunningLeader();
        // the writes Ratis kept retrying land and give their places back
        long after =
            Awaitility.await("a write once the majority is back")
                .atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(() -> client.submit(new Work("after"), new NonceKey(2, 10)), id -> id > 0);
        assertEquals(
            ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, after).state());
      }
    }
  }

  /** The call fails within the request timeout (plus margin) with an IOException naming why. */
  private static void assertFailsClearly(CompletableFuture<?> call, String what) {
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> call.get(REQUEST_TIMEOUT.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS),
            what + " must fail, not hang");
    IOException cause =
        assertInstanceOf(IOException.class, e.getCause(), what + ": " + e.getCause());
    assertNoMajorityMessage(cause);
  }

  private static void assertNoMajorityMessage(IOException e) {
    String m = String.valueOf(e.getMessage());
    assertTrue(m.contains("no leader") && m.contains("majority"), "unclear error: " + m);
  }
}
