package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.certs.CertificateAuthority;
import dev.baton.certs.CertificateRequest;
import dev.baton.certs.IssuedCertificate;
import dev.baton.certs.Usage;
import dev.baton.consensus.tls.ClientRole;
import dev.baton.consensus.tls.PeerIdentity;
import dev.baton.consensus.tls.TlsSettings;
import dev.baton.procedure.NonceKey;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member added to a running group over mutual TLS: it starts empty as a joining member, the
 * leader adds it, it catches up, and its certificate is accepted as a member's from then on; once
 * removed, it learns it by itself and its certificate is refused again.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MembershipChangeTest {
  private static final CertificateAuthority CA = CertificateAuthority.create("membership-test");

  /** Long enough for a staging catch-up on a busy machine. */
  private static final Duration CHANGE_TIMEOUT = Duration.ofSeconds(60);

  private static final int PROCEDURES = 20;

  @TempDir Path dir;

  /**
   * A member certificate for {@code id} issued by this test's CA (also used by other TLS tests).
   */
  static TlsSettings tls(String id) {
    IssuedCertificate c =
        CA.issue(
            CertificateRequest.named(id)
                .withUri(PeerIdentity.member(id).uri())
                .withHosts(List.of("127.0.0.1", "localhost"))
                .withUsages(EnumSet.of(Usage.SERVER, Usage.CLIENT)));
    return TlsSettings.of(c.chain(), c.privateKey(), List.of(CA.certificate()));
  }

  /** A client certificate named {@code name} with {@code role}, issued by this test's CA. */
  static TlsSettings clientTls(String name, ClientRole role) {
    IssuedCertificate c =
        CA.issue(
            CertificateRequest.named(name)
                .withUri(PeerIdentity.client(name, role).uri())
                .withUsages(EnumSet.of(Usage.CLIENT)));
    return TlsSettings.of(c.chain(), c.privateKey(), List.of(CA.certificate()));
  }

  @Test
  void aJoinedMemberIsTrustedOnceAddedAndRefusedOnceRemoved() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3)) {
      for (String id : List.copyOf(cluster.peers.keySet())) {
        cluster.start(id, b -> b.tls(tls(id)));
      }
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      for (int i = 1; i <= PROCEDURES; i++) {
        TestCluster.submitRetrying(leader, () -> new Work("before"), new NonceKey(1, 0));
        TestCluster.submitRetrying(leader, () -> new Work("w"), new NonceKey(2, i));
      }

      InetSocketAddress address = cluster.addPeer("n4");
      AtomicReference<String> removed = new AtomicReference<>();
      ProcedureNode<Work.Env> joiner =
          cluster.start("n4", b -> b.tls(tls("n4")).join(true).onRemoved(removed::set));
      String refusedBefore = groupInfoAs("n4", cluster, leader.nodeId());
      assertTrue(
          refusedBefore.contains("not a member"),
          "n4 is no member yet, its admin call is refused: " + refusedBefore);
      assertFalse(leader.membership().isMember("n4"));

      leader.membership().add("n4", address, CHANGE_TIMEOUT);
      assertTrue(leader.membership().isMember("n4"));
      assertEquals(
          List.of("n1", "n2", "n3", "n4"),
          leader.membership().members().stream().map(Membership.Member::id).sorted().toList());
      leader.membership().add("n4", address, CHANGE_TIMEOUT); // again: nothing to do
      cluster.awaitSameTables();
      assertEquals("", groupInfoAs("n4", cluster, leader.nodeId()), "a member's call is served");
      await()
          .atMost(TestCluster.ELECTION_WAIT)
          .until(() -> joiner.peers().containsKey("n1") && joiner.peers().containsKey("n4"));

      assertThrows(
          IllegalStateException.class,
          () -> leader.membership().remove(leader.nodeId(), CHANGE_TIMEOUT),
          "the leader does not remove itself");
      leader.membership().remove("n4", CHANGE_TIMEOUT);
      assertFalse(leader.membership().isMember("n4"));
      await().atMost(TestCluster.ELECTION_WAIT).until(() -> removed.get() != null);
      assertTrue(removed.get().contains("n4"), removed.get());
      String refusedAfter = groupInfoAs("n4", cluster, leader.nodeId());
      assertTrue(
          refusedAfter.contains("not a member"),
          "a removed member's admin call is refused: " + refusedAfter);
      leader.membership().remove("n4", CHANGE_TIMEOUT); // again: nothing to do
    }
  }

  /**
   * Asks {@code target} for the group's info over TLS with the certificate of member {@code as};
   * returns "" if served, else the refusal's message.
   */
  private static String groupInfoAs(String as, TestCluster cluster, String target)
      throws IOException {
    RaftGroup group = ProcedureGroup.of(ProcedureNode.DEFAULT_CLUSTER_ID, cluster.peers);
    try (RaftClient client =
        RaftClient.newBuilder()
            .setRaftGroup(group)
            .setProperties(new RaftProperties())
            .setParameters(RaftSecurity.mutualTls(tls(as), cluster.peers).clientParameters())
            .setRetryPolicy(RetryPolicies.noRetry())
            .build()) {
      client.getGroupManagementApi(RaftPeerId.valueOf(target)).info(group.getGroupId());
      return "";
    } catch (IOException | RuntimeException e) {
      return String.valueOf(e.getMessage()) + " " + e.getCause();
    }
  }
}
