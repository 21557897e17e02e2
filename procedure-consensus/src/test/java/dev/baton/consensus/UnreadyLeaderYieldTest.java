package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node Ratis elects that cannot become the ready leader (its apply thread is stuck) hands
 * leadership on after the unready patience, so that the group gets a leader whose executor runs.
 * Without the hand-over the stuck node would hold leadership for as long as it heartbeats.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UnreadyLeaderYieldTest {
  private static final Duration PATIENCE = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  /** Blocks the apply thread of its node, once armed, until opened. */
  private static final class ApplyGate implements AppliedChanges {
    private volatile boolean armed;
    private final CountDownLatch reached = new CountDownLatch(1);
    private final CountDownLatch open = new CountDownLatch(1);

    @Override
    public void applied(long index, List<Change> changes) {
      if (!armed) {
        return;
      }
      reached.countDown();
      try {
        // a forgotten gate cannot hang the run beyond the test's timeout
        open.await(WAIT.toMillis() * 2, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void replaced(long index) {}
  }

  @Test
  void anElectedNodeThatCannotApplyHandsLeadershipToOneThatCan() throws Exception {
    Map<String, ApplyGate> gates = new HashMap<>();
    try (TestCluster cluster = new TestCluster(dir, 3, b -> b.unreadyLeaderPatience(PATIENCE))) {
      for (String id : List.of("n1", "n2", "n3")) {
        ApplyGate gate = new ApplyGate();
        gates.put(id, gate);
        cluster.start(id, b -> b.onApplied(gate));
      }
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      ProcedureNode<Work.Env> stuck =
          cluster.running().stream().filter(n -> n != leader).findFirst().orElseThrow();
      ApplyGate gate = gates.get(stuck.nodeId());

      gate.armed = true;
      try {
        yieldsAndCatchesUp(cluster, leader, stuck, gate);
      } finally {
        gate.armed = false;
        gate.open.countDown(); // a failed check must not leave the node's close waiting on it
      }
    }
  }

  private void yieldsAndCatchesUp(
      TestCluster cluster,
      ProcedureNode<Work.Env> leader,
      ProcedureNode<Work.Env> stuck,
      ApplyGate gate)
      throws Exception {
    long id = leader.submit(new Work("w"), null).get(30, TimeUnit.SECONDS);
    assertTrue(gate.reached.await(30, TimeUnit.SECONDS), "the stuck node's apply blocked");
    long stuckAt = stuck.metrics().appliedIndex();

    leader.membership().transferLeadership(stuck.nodeId(), Duration.ofSeconds(20));
    AtomicReference<LeadershipManager.RecoveryProgress> seen = new AtomicReference<>();
    Awaitility.await("the stuck node elected and waiting to be ready")
        .atMost(WAIT)
        .until(
            () -> {
              stuck.recoveryProgress().ifPresent(seen::set);
              return seen.get() != null || !stuck.isLeader();
            });
    assertEquals(
        LeadershipManager.RecoveryProgress.AWAITING_READY,
        seen.get() == null ? "never seen recovering" : seen.get().stage());

    AtomicReference<ProcedureNode<Work.Env>> next = new AtomicReference<>();
    Awaitility.await("a running leader other than the stuck node")
        .atMost(WAIT)
        .until(
            () -> {
              for (ProcedureNode<Work.Env> n : cluster.running()) {
                if (n != stuck && n.role() == NodeRole.LEADER_RUNNING && !stuck.isLeader()) {
                  next.set(n);
                  return true;
                }
              }
              return false;
            });
    assertEquals(stuckAt, stuck.metrics().appliedIndex(), "the stuck node applied nothing");
    assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(next.get(), id).state());

    gate.armed = false;
    gate.open.countDown();
    long target = next.get().metrics().appliedIndex();
    Awaitility.await("the stuck node catches up once its apply moves")
        .atMost(WAIT)
        .until(() -> stuck.metrics().appliedIndex() >= target);
  }
}
