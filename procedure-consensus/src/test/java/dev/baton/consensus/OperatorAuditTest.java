package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.OperatorAction;
import dev.baton.procedure.ProcedureState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operator actions go through the log: refused with the reason when illegal, carried out by the
 * leader's executor, and kept in an audit trail that is the same on every node and survives a
 * leader change and a full restart.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class OperatorAuditTest {
  private static final long WAIT_S = 30;

  @TempDir Path dir;

  @Test
  void actionsAreAuditedAlikeOnEveryNodeAcrossFailoverAndRestart() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      long done = leader.submit(new Work("done"), null).get(WAIT_S, TimeUnit.SECONDS);
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, done).state());

      ProcedureNode<Work.Env> follower = cluster.follower();
      ExecutionException noReason =
          assertThrows(
              ExecutionException.class,
              () ->
                  follower
                      .act(OperatorAction.BYPASS, done, false, "alice", " ")
                      .get(WAIT_S, TimeUnit.SECONDS));
      assertTrue(
          noReason.getCause().getMessage().contains("a reason is required"),
          noReason.getCause()::toString);

      AuditEntry refused =
          follower
              .act(OperatorAction.BYPASS, done, false, "alice", "clean up")
              .get(WAIT_S, TimeUnit.SECONDS);
      assertTrue(refused.refused(), refused::toString);
      assertTrue(refused.outcome().contains("is finished (SUCCESS)"), refused.outcome());

      CountDownLatch gate = cluster.world.hold("live:APPLY");
      long live = leader.submit(new Work("live"), null).get(WAIT_S, TimeUnit.SECONDS);
      assertTrue(cluster.world.reached.get("live:APPLY").await(WAIT_S, TimeUnit.SECONDS));
      AuditEntry bypass =
          follower
              .act(OperatorAction.BYPASS, live, false, "bob", "DataNode gone")
              .get(WAIT_S, TimeUnit.SECONDS);
      assertFalse(bypass.refused(), bypass::toString);
      gate.countDown(); // the running step ends; the bypass finishes it without COMMIT
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, live).state());
      assertEquals(
          List.of("PREPARE", "APPLY"),
          cluster.world.steps("live").stream().map(World.Step::state).toList());

      List<AuditEntry> expected = awaitSameAudit(cluster, 2);
      assertEquals(List.of("alice", "bob"), expected.stream().map(AuditEntry::principal).toList());
      assertEquals(List.of(done, live), expected.stream().map(AuditEntry::procId).toList());
      assertEquals("DataNode gone", expected.get(1).reason());

      cluster.kill(leader.nodeId());
      cluster.awaitRunningLeader();
      assertEquals(expected, awaitSameAudit(cluster, 2), "after a leader change");

      for (ProcedureNode<Work.Env> n : cluster.running()) {
        n.takeSnapshot().get(WAIT_S, TimeUnit.SECONDS);
      }
      cluster.killAll();
      cluster.startAll();
      cluster.awaitRunningLeader();
      assertEquals(expected, awaitSameAudit(cluster, 2), "after a full restart");
    }
  }

  /** Waits until every running node reads the same decided trail of {@code size} actions. */
  private static List<AuditEntry> awaitSameAudit(TestCluster cluster, int size) {
    List<AuditEntry>[] seen = new List[1];
    Awaitility.await("the same audit on every node")
        .atMost(Duration.ofSeconds(WAIT_S))
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(
            () -> {
              List<AuditEntry> first = null;
              for (ProcedureNode<Work.Env> n : cluster.running()) {
                List<AuditEntry> a = n.audit().get(WAIT_S, TimeUnit.SECONDS);
                if (a.size() != size || !a.stream().allMatch(AuditEntry::decided)) {
                  return false;
                }
                if (first != null && !first.equals(a)) {
                  return false;
                }
                first = a;
              }
              seen[0] = first;
              return first != null;
            });
    return seen[0];
  }
}
