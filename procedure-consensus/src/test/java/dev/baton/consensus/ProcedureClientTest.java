package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A process outside the cluster drives procedures through {@link ProcedureClient}. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProcedureClientTest {
  static final Duration AWAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void submitAwaitAbortAndFailureThroughAnExternalClient() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll();
        ProcedureClient client = ProcedureClient.connect(cluster.peers, Work.registry())) {
      cluster.awaitRunningLeader();

      // submit and await; a retried submission with the same nonce is the same procedure
      NonceKey nonce = new NonceKey(3, 1);
      long ok = client.submit(new Work("ok"), nonce);
      assertEquals(ok, client.submit(new Work("ok"), nonce));
      ProcedureInfo done = client.await(ok, AWAIT);
      assertEquals(ProcedureState.SUCCESS, done.state());
      assertEquals("Work", done.type());
      assertNull(done.failure());
      assertTrue(client.list().stream().anyMatch(i -> i.procId() == ok));
      assertEquals(
          1, cluster.world.steps("ok").stream().filter(s -> s.state().equals("COMMIT")).count());

      // abort a procedure held in APPLY: it fails and rolls back what ran, newest first
      CountDownLatch gate = cluster.world.hold("held:APPLY");
      long held = client.submit(new Work("held"), null);
      assertTrue(cluster.world.reached.get("held:APPLY").await(30, TimeUnit.SECONDS));
      TimeoutException notYet =
          assertThrows(TimeoutException.class, () -> client.await(held, Duration.ofMillis(200)));
      assertTrue(notYet.getMessage().contains(String.valueOf(held)), notYet.getMessage());
      assertTrue(client.abort(held), "the executor accepts the abort of a running procedure");
      gate.countDown();
      ProcedureInfo aborted = client.await(held, AWAIT);
      assertEquals(ProcedureState.ROLLEDBACK, aborted.state(), aborted.toString());
      assertNotNull(aborted.failure());
      assertTrue(aborted.failure().contains("abort"), aborted.failure());
      assertEquals(List.of("PREPARE", "APPLY"), states(cluster.world.steps("held")));
      assertEquals(List.of("APPLY", "PREPARE"), states(cluster.world.rollbacks("held")));

      // nothing left to abort: finished or unknown
      assertFalse(client.abort(ok));
      assertFalse(client.abort(held));
      assertFalse(client.abort(987_654));
      assertTrue(client.getInfo(987_654).isEmpty());

      // a step that fails rolls its procedure back, the failing state included
      long failing = client.submit(new Work("failing", Work.S.COMMIT), null);
      ProcedureInfo failed = client.await(failing, AWAIT);
      assertEquals(ProcedureState.ROLLEDBACK, failed.state(), failed.toString());
      assertTrue(failed.failure().contains("planned failure"), failed.failure());
      assertEquals(List.of("PREPARE", "APPLY", "COMMIT"), states(cluster.world.steps("failing")));
      assertEquals(
          List.of("COMMIT", "APPLY", "PREPARE"), states(cluster.world.rollbacks("failing")));

      // every node tells the same story
      for (ProcedureNode<Work.Env> n : cluster.running()) {
        assertEquals(
            ProcedureState.ROLLEDBACK,
            n.getInfo(held).get(30, TimeUnit.SECONDS).orElseThrow().state(),
            n.nodeId());
      }
    }
  }

  private static List<String> states(List<World.Step> steps) {
    return steps.stream().map(World.Step::state).toList();
  }
}
