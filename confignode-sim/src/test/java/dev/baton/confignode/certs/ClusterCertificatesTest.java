package dev.baton.confignode.certs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.consensus.tls.ClientRole;
import dev.baton.consensus.tls.PeerIdentity;
import dev.baton.consensus.tls.TlsSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The certificates of a cluster as the certs command will write them. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterCertificatesTest {
  @TempDir Path dir;

  @Test
  void writesACaAndOneCertificatePerPartyNamingItsIdentity() throws Exception {
    ClusterFiles files =
        ClusterCertificates.write(
            dir, List.of("cn1", "cn2", "cn3"), 2, ClusterCertificates.LOOPBACK_HOSTS);

    for (String id : List.of("cn1", "cn2", "cn3")) {
      TlsSettings member = files.member(id).tlsSettings();
      assertEquals(PeerIdentity.member(id), member.identity());
      X509Certificate cert = member.certificate();
      cert.verify(member.trustedCertificates().get(0).getPublicKey());
      assertTrue(
          cert.getSubjectAlternativeNames().stream().anyMatch(n -> n.get(1).equals("127.0.0.1")),
          "the host others reach the member by: " + cert.getSubjectAlternativeNames());
      assertTrue(cert.getExtendedKeyUsage().containsAll(List.of(SERVER_AUTH, CLIENT_AUTH)));
      assertEquals(
          "rw-------",
          PosixFilePermissions.toString(Files.getPosixFilePermissions(files.member(id).key())));
    }
    for (String id : List.of("1", "2")) {
      assertEquals(PeerIdentity.dataNode(id), files.dataNode(id).tlsSettings().identity());
    }
    for (ClientRole role : ClientRole.values()) {
      TlsSettings client = files.client(role).tlsSettings();
      assertEquals(PeerIdentity.client(role.certificateName(), role), client.identity());
      assertEquals(List.of(CLIENT_AUTH), client.certificate().getExtendedKeyUsage());
    }
  }

  /** The OIDs of TLS server and client authentication. */
  static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

  static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
}
