package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.certs.CertificateAuthority;
import dev.baton.certs.CertificateRequest;
import dev.baton.certs.IssuedCertificate;
import dev.baton.consensus.tls.PeerIdentity;
import dev.baton.consensus.tls.TlsSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Where a node may listen, and with which certificate, decided before it is built. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BindCheckTest {
  private static final CertificateAuthority CA = CertificateAuthority.create("test-ca");

  private static TlsSettings tls(CertificateAuthority ca, String... uris) {
    CertificateRequest request = CertificateRequest.named("n");
    for (String uri : uris) {
      request = request.withUri(uri);
    }
    IssuedCertificate c = ca.issue(request);
    return TlsSettings.of(c.chain(), c.privateKey(), List.of(ca.certificate()));
  }

  @Test
  void withoutTlsOnlyLoopbackUnlessInsecureIsAllowed() {
    assertDoesNotThrow(() -> BindCheck.check("a", "127.0.0.1", null, false));
    assertDoesNotThrow(() -> BindCheck.check("a", "localhost", null, false));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> BindCheck.check("a", "0.0.0.0", null, false));
    assertTrue(e.getMessage().contains("not a loopback address"), e.getMessage());
    assertDoesNotThrow(() -> BindCheck.check("a", "0.0.0.0", null, true));
  }

  @Test
  void anUnknownHostIsRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () -> BindCheck.check("a", "no-such-host.invalid", null, true));
  }

  @Test
  void withTlsTheCertificateMustNameThisMember() {
    assertDoesNotThrow(
        () -> BindCheck.check("a", "0.0.0.0", tls(CA, PeerIdentity.member("a").uri()), false));
    IllegalArgumentException other =
        assertThrows(
            IllegalArgumentException.class,
            () -> BindCheck.check("a", "0.0.0.0", tls(CA, PeerIdentity.member("b").uri()), false));
    assertTrue(other.getMessage().contains("names member b"), other.getMessage());
    IllegalArgumentException none =
        assertThrows(
            IllegalArgumentException.class,
            () -> BindCheck.check("a", "127.0.0.1", tls(CA), false));
    assertTrue(none.getMessage().contains("no Baton identity"), none.getMessage());
  }

  @Test
  void anExpiredCertificateIsRefused() {
    Duration validity = Duration.ofMillis(1);
    CertificateAuthority shortLived = CertificateAuthority.create("short", validity);
    TlsSettings expiring = tls(shortLived, PeerIdentity.member("a").uri());
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> expiring.certificate().getNotAfter().getTime() < System.currentTimeMillis());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> BindCheck.check("a", "127.0.0.1", expiring, false));
    assertTrue(e.getMessage().contains("not valid now"), e.getMessage());
  }
}
