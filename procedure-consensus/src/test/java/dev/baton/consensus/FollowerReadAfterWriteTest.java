package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.consensus.proto.QueryReply;
import dev.baton.consensus.proto.ReadIndexRequest;
import dev.baton.consensus.tls.ClientRole;
import dev.baton.consensus.tls.TlsSettings;
import dev.baton.procedure.ProcedureInfo;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.thirdparty.io.grpc.ManagedChannel;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.awaitility.Awaitility;
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
    try (TestCluster cluster = new TestCluster(dir, 3)) {
      Map<String, ApplyGate> gates = startGated(cluster);
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      ProcedureNode<Work.Env> follower = cluster.follower();
      ApplyGate gate = gates.get(follower.nodeId());
      try {
        long second = writeTheFollowerMisses(leader, gate);
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

  /**
   * The follower's own path, by the leader's read index ({@link FollowerReads}): it waits for the
   * follower's apply of the acknowledged write; only the leader gives a read index.
   */
  @Test
  void aReadByTheLeadersReadIndexWaitsForTheFollowersApply() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3)) {
      Map<String, ApplyGate> gates = startGated(cluster);
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      ProcedureNode<Work.Env> follower = cluster.follower();
      ApplyGate gate = gates.get(follower.nodeId());
      Duration timeout = Duration.ofSeconds(30);
      try {
        long second = writeTheFollowerMisses(leader, gate);
        CompletableFuture<QueryReply> read =
            follower.followerReads().read(ProcedureClient.getQuery(second), timeout);
        Awaitility.await()
            .atMost(timeout)
            .until(() -> read.isDone() || follower.appliedWaits().waiting() > 0);
        assertFalse(read.isDone(), "the read answered before the follower applied the write");
        gate.released.countDown();
        QueryReply seen = read.get(30, TimeUnit.SECONDS);
        assertEquals(1, seen.getProceduresCount(), "the read missed the acknowledged write");
        assertEquals(second, seen.getProcedures(0).getProcId());
      } finally {
        gate.released.countDown();
      }
      long applied = follower.appliedWaits().applied();
      TlsSettings member = MembershipChangeTest.tls("n1");
      assertTrue(
          readIndexOf(cluster, leader, member) >= applied, "the leader's read index is behind");
      ExecutionException client =
          assertThrows(
              ExecutionException.class,
              () ->
                  readIndexOf(
                      cluster, leader, MembershipChangeTest.clientTls("r", ClientRole.ADMIN)));
      assertTrue(
          client.getCause().getMessage().contains(Status.Code.PERMISSION_DENIED.name()),
          String.valueOf(client.getCause()));
      ExecutionException refused =
          assertThrows(ExecutionException.class, () -> readIndexOf(cluster, follower, member));
      assertTrue(
          refused.getCause().getMessage().contains("not the leader"),
          String.valueOf(refused.getCause()));
      ExecutionException alone =
          assertThrows(
              ExecutionException.class,
              () ->
                  leader
                      .followerReads()
                      .read(ProcedureClient.getQuery(1), timeout)
                      .get(30, TimeUnit.SECONDS));
      assertTrue(alone.getCause() instanceof IOException, String.valueOf(alone.getCause()));
    }
  }

  /**
   * Starts the cluster's members over mutual TLS, each applying through a gate: the gates by id.
   */
  private static Map<String, ApplyGate> startGated(TestCluster cluster) throws Exception {
    Map<String, ApplyGate> gates = new ConcurrentHashMap<>();
    for (String id : cluster.peers.keySet()) {
      ApplyGate gate = gates.computeIfAbsent(id, k -> new ApplyGate());
      cluster.start(id, b -> b.tls(MembershipChangeTest.tls(id)).onApplied(gate));
    }
    return gates;
  }

  /**
   * Parks the follower's apply thread (its {@code gate}) at a first write, then has the leader and
   * the other follower commit and apply a second without it: the second's id, acknowledged.
   */
  private static long writeTheFollowerMisses(ProcedureNode<Work.Env> leader, ApplyGate gate)
      throws Exception {
    gate.armed = true;
    leader.submit(new Work("first"), null).get(30, TimeUnit.SECONDS);
    assertTrue(gate.parked.await(30, TimeUnit.SECONDS), "the follower applied the write");
    return leader.submit(new Work("second"), null).get(30, TimeUnit.SECONDS);
  }

  /** Asks {@code node}'s read index service with the certificate {@code as}, on a stream of one. */
  private static long readIndexOf(TestCluster cluster, ProcedureNode<Work.Env> node, TlsSettings as)
      throws Exception {
    InetSocketAddress at = cluster.peers.get(node.nodeId());
    ManagedChannel channel =
        RaftSecurity.mutualTls(as, cluster.peers)
            .channelTo(at.getHostString() + ":" + at.getPort());
    try (ReadIndexStream stream = new ReadIndexStream(channel)) {
      return stream
          .ask(ReadIndexRequest.newBuilder(), TestCluster.ELECTION_WAIT)
          .get(TestCluster.ELECTION_WAIT.toSeconds() * 2, TimeUnit.SECONDS);
    } finally {
      channel.shutdownNow();
    }
  }
}
