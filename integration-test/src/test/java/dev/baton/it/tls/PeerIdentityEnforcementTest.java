package dev.baton.it.tls;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.certs.IssuedCertificate;
import dev.baton.confignode.certs.ClusterCertificates;
import dev.baton.consensus.ProcedureNode;
import dev.baton.consensus.tls.TlsSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Only the members the cluster's CA certified, each as itself, take part in Raft: a peer with a
 * certificate of another CA, and a peer holding a valid certificate of another member, never vote,
 * lead or receive an entry, while the two real members elect and commit.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PeerIdentityEnforcementTest {
  /** How long the odd peer is watched once the others committed: many election timeouts. */
  static final Duration WATCH = Duration.ofSeconds(5);

  @TempDir Path dir;

  @Test
  void aPeerWithACertificateOfAnotherCaCannotJoinOrVote() throws Exception {
    try (TlsCluster cluster = new TlsCluster(dir, List.of("a", "b", "c"))) {
      ClusterCertificates otherCa = ClusterCertificates.create("other-ca");
      IssuedCertificate foreign = otherCa.member("c", ClusterCertificates.LOOPBACK_HOSTS);
      ProcedureNode<Object> c =
          cluster.start(
              "c",
              TlsSettings.of(
                  foreign.chain(), foreign.privateKey(), List.of(otherCa.caCertificate())));
      ProcedureNode<Object> a = cluster.start("a");
      ProcedureNode<Object> b = cluster.start("b");

      ProcedureNode<Object> leader = TlsCluster.awaitLeader(List.of(a, b));
      long id = cluster.submitAndFinish(leader);

      await()
          .during(WATCH)
          .atMost(WATCH.multipliedBy(2))
          .until(() -> !c.isLeader() && c.metrics().appliedIndex() < 0);
      ExecutionException unread =
          assertThrows(
              ExecutionException.class,
              () -> c.getInfo(id).get(TlsCluster.WAIT.toMillis(), TimeUnit.MILLISECONDS));
      assertTrue(unread.getCause().getMessage().contains("no leader"), unread.getMessage());
    }
  }

  @Test
  void aValidCertificateNamingAnotherPeerIsRefused() throws Exception {
    try (TlsCluster cluster = new TlsCluster(dir, List.of("a", "b", "c"))) {
      // the node itself refuses to start under another member's certificate
      TlsSettings bCertificate = cluster.certs.member("b").tlsSettings();
      IllegalArgumentException refused =
          assertThrows(
              IllegalArgumentException.class, () -> cluster.builder("c").tls(bCertificate).build());
      assertTrue(refused.getMessage().contains("naming member c"), refused.getMessage());

      // and a peer without that check, holding b's valid certificate, cannot take part as c
      IssuedCertificate stolen =
          new IssuedCertificate(
              bCertificate.certificate(),
              bCertificate.privateKey(),
              bCertificate.trustedCertificates().get(0));
      try (ImpostorPeer c =
          new ImpostorPeer(
              "c",
              cluster.peers,
              stolen,
              bCertificate.trustedCertificates().get(0),
              dir.resolve("impostor"))) {
        ProcedureNode<Object> a = cluster.start("a");
        ProcedureNode<Object> b = cluster.start("b");
        ProcedureNode<Object> leader = TlsCluster.awaitLeader(List.of(a, b));
        cluster.submitAndFinish(leader);
        await()
            .during(WATCH)
            .atMost(WATCH.multipliedBy(2))
            .until(() -> !c.isLeader() && c.logIsEmpty());
      }
    }
  }
}
