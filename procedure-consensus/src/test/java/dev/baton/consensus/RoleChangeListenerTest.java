package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ProcedureNode.Builder#onRoleChange}: each node's listeners hear its role changes in order,
 * on the node's own notification thread, without holding up the node; a failing listener does not
 * keep the others from hearing.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RoleChangeListenerTest {
  @TempDir Path dir;

  /** Name of the notifying thread → the roles heard on it, in order. */
  private final Map<String, List<NodeRole>> heard = new ConcurrentHashMap<>();

  private final CountDownLatch listenersBlocked = new CountDownLatch(1);

  private void record(NodeRole role) {
    heard
        .computeIfAbsent(
            Thread.currentThread().getName(), t -> Collections.synchronizedList(new ArrayList<>()))
        .add(role);
  }

  /** What the listener of {@code nodeId} heard on that node's notification thread. */
  private List<NodeRole> heardBy(String nodeId) {
    List<NodeRole> roles = heard.getOrDefault("baton-" + nodeId + "-roles", List.of());
    synchronized (roles) {
      return List.copyOf(roles);
    }
  }

  private static boolean endsWith(List<NodeRole> roles, NodeRole... last) {
    return roles.size() >= last.length
        && roles.subList(roles.size() - last.length, roles.size()).equals(List.of(last));
  }

  @Test
  void listenersHearEveryChangeInOrderAndABlockedOrFailingOneHoldsUpNothingElse() throws Exception {
    try (TestCluster cluster =
        new TestCluster(
            dir,
            3,
            b ->
                b.onRoleChange(role -> awaitUninterruptibly(listenersBlocked))
                    .onRoleChange(
                        role -> {
                          throw new IllegalStateException("a listener that fails on " + role);
                        })
                    .onRoleChange(this::record))) {
      cluster.startAll();
      ProcedureNode<Work.Env> first = cluster.awaitRunningLeader();
      assertTrue(heard.isEmpty(), "the first listener still blocks every notification: " + heard);

      listenersBlocked.countDown();
      await()
          .atMost(TestCluster.ELECTION_WAIT)
          .until(
              () ->
                  endsWith(
                      heardBy(first.nodeId()),
                      NodeRole.LEADER_RECOVERING,
                      NodeRole.LEADER_RUNNING));

      cluster.kill(first.nodeId());
      ProcedureNode<Work.Env> next = cluster.awaitRunningLeader();
      assertNotEquals(first.nodeId(), next.nodeId());
      await()
          .atMost(TestCluster.ELECTION_WAIT)
          .until(
              () ->
                  endsWith(
                          heardBy(next.nodeId()),
                          NodeRole.LEADER_RECOVERING,
                          NodeRole.LEADER_RUNNING)
                      && endsWith(heardBy(first.nodeId()), NodeRole.FOLLOWER));

      assertTrue(
          heard.keySet().stream().allMatch(t -> t.matches("baton-n\\d-roles")),
          "notified only on the nodes' notification threads: " + heard.keySet());
      for (String id : cluster.peers.keySet()) {
        List<NodeRole> roles = heardBy(id);
        for (int i = 0; i < roles.size(); i++) {
          NodeRole before = i == 0 ? NodeRole.FOLLOWER : roles.get(i - 1);
          assertNotEquals(before, roles.get(i), id + " heard a role that did not change: " + roles);
          if (roles.get(i) == NodeRole.LEADER_RUNNING) {
            assertEquals(
                NodeRole.LEADER_RECOVERING, before, id + " ran before it recovered: " + roles);
          }
        }
      }
    }
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
