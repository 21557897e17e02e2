package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A submission is answered as soon as its entry is applied: neither the leader's adoption of the
 * procedure (decoding, scheduling) nor its first step delays the reply; and what a caller does with
 * the reply does not hold up the leader's application of entries.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SubmitReplyTest {
  /** Far below the request timeout: a reply that waited for the gates would miss it. */
  static final long REPLY_WAIT_SECONDS = 5;

  @TempDir Path dir;

  @Test
  void theReplyWaitsNeitherForTheAdoptionNorForTheFirstStep() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      CountDownLatch decode = new CountDownLatch(1);
      Work.DECODE_GATES.put("slow-to-adopt", decode);
      CountDownLatch step = cluster.world.hold("held:PREPARE");
      try {
        // the first step of "held" blocks its worker; the reply came before it
        long held = leader.submit(new Work("held"), null).get(REPLY_WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(cluster.world.reached.get("held:PREPARE").await(30, TimeUnit.SECONDS));
        // the adoption of "slow-to-adopt" blocks in decoding; the reply does not wait for it
        long slow =
            leader
                .submit(new Work("slow-to-adopt"), null)
                .get(REPLY_WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(List.of(), cluster.world.steps("slow-to-adopt"), "adopted before the gate");
        assertEquals(List.of(), cluster.world.steps("held"), "held step finished before the gate");

        decode.countDown();
        step.countDown();
        for (long id : List.of(slow, held)) {
          assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, id).state());
        }
      } finally {
        Work.DECODE_GATES.remove("slow-to-adopt");
        decode.countDown();
        step.countDown();
      }
    }
  }

  /**
   * Ratis completes a leader's own requests on the thread that applies every entry; a caller's
   * callback on its submission's future must not run there: one that blocks would stop the leader
   * applying anything, and a submission through a follower would never be answered. Nor on the
   * thread of the executor's continuations (its store's replies): the executor would stall, and
   * with it the leader's running executor.
   */
  @Test
  void aCallbackThatBlocksDoesNotStopTheLeaderApplying() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      CountDownLatch release = new CountDownLatch(1);
      AtomicReference<String> callbackThread = new AtomicReference<>();
      CompletableFuture<Long> blocking =
          leader
              .submit(new Work("blocking-caller"), null)
              .thenApply(
                  id -> {
                    callbackThread.set(Thread.currentThread().getName());
                    try {
                      release.await();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                    return id;
                  });
      try {
        await()
            .atMost(Duration.ofSeconds(REPLY_WAIT_SECONDS))
            .until(() -> callbackThread.get() != null);
        assertFalse(
            callbackThread.get().contains("StateMachineUpdater"),
            "callback ran on the apply thread " + callbackThread.get());
        // nor on the thread of the executor's own continuations: the executor goes on (a running
        // leader, which follower() awaits, and the follower's submission answered)
        assertFalse(
            callbackThread.get().equals("baton-" + leader.nodeId() + "-replies"),
            "callback ran on the executor's reply thread " + callbackThread.get());
        long other =
            cluster
                .follower()
                .submit(new Work("through-a-follower"), null)
                .get(REPLY_WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(other > 0, "procId " + other);
      } finally {
        release.countDown();
      }
      assertTrue(blocking.get(REPLY_WAIT_SECONDS, TimeUnit.SECONDS) > 0);
    }
  }
}
