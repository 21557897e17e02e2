package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A linearizable read on a follower that has not applied the leader's latest acknowledged write
 * waits for it instead of answering from its older state, over mutual TLS (where the reply of a
 * read that waited leaves the apply thread that completes it, {@link LocalSubmitter}).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FollowerReadAfterWriteTest {
  /**
   * Longest a gated apply thread waits for its release, so a failed test cannot hang the cluster.
   */
  private static final long MAX_PARK_SECONDS = 60;

  @TempDir Path dir;

  /** Parks a node's apply thread on the first change it applies once armed, until released. */
  private static final class ApplyGate implements AppliedChanges {
    volatile boolean armed;
    final CountDownLatch parked = new CountDownLatch(1);
    final CountDownLatch released = new CountDownLatch(1);

    @Override
    public void applied(long index, List<Change> changes) {
      if (!armed) {
        return;
      }
      armed = false;
      parked.countDown();
      try {
        released.await(MAX_PARK_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void replaced(long index) {}
  }

  @Test
  void aFollowerBehindTheLeadersAcknowledgedWriteWaitsForItBeforeAnswering() throws Exception {
    Map<String, ApplyGate> gates = new ConcurrentHashMap<>();
    try (TestCluster cluster = new TestCluster(dir, 3)) {
      for (String id : cluster.peers.keySet()) {
        ApplyGate gate = gates.computeIfAbsent(id, k -> new ApplyGate());
        cluster.start(id, b -> b.tls(MembershipChangeTest.tls(id)).onApplied(gate));
      }
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      ProcedureNode<Work.Env> follower = cluster.follower();
      ApplyGate gate = gates.get(follower.nodeId());
      try {
        // the follower's apply thread stops at the first write; the leader and the other follower
        // commit and apply the next one without it
        gate.armed = true;
        leader.submit(new Work("first"), null).get(30, TimeUnit.SECONDS);
        assertTrue(gate.parked.await(30, TimeUnit.SECONDS), "the follower applied the write");
        long second = leader.submit(new Work("second"), null).get(30, TimeUnit.SECONDS);

        CompletableFuture<Optional<ProcedureInfo>> read = follower.getInfo(second);
        gate.released.countDown();
        Optional<ProcedureInfo> seen = read.get(30, TimeUnit.SECONDS);
        assertTrue(seen.isPresent(), "the follower's read missed the acknowledged write");
        assertEquals(second, seen.get().procId());
      } finally {
        gate.released.countDown();
      }
    }
  }
}
