package dev.baton.consensus.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.certs.CertificateAuthority;
import dev.baton.certs.CertificateRequest;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The identity convention read back from real certificates. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PeerIdentityTest {
  private static final CertificateAuthority CA = CertificateAuthority.create("test-ca");

  private static X509Certificate issued(String commonName, String... uris) {
    CertificateRequest request =
        CertificateRequest.named(commonName).withHosts(List.of("127.0.0.1"));
    for (String uri : uris) {
      request = request.withUri(uri);
    }
    return CA.issue(request).certificate();
  }

  @Test
  void eachIdentityIsReadBackFromTheUriItIsWrittenAs() throws Exception {
    for (PeerIdentity id :
        List.of(
            PeerIdentity.member("cn1"),
            PeerIdentity.client("alice", ClientRole.READER),
            PeerIdentity.client("bob", ClientRole.OPERATOR),
            PeerIdentity.client("root", ClientRole.ADMIN),
            PeerIdentity.dataNode("3"))) {
      assertEquals(id, PeerIdentity.of(issued(id.name(), id.uri())));
    }
  }

  @Test
  void aMemberIsNamedByItsSanNotItsCommonName() throws Exception {
    PeerIdentity id = PeerIdentity.of(issued("b", PeerIdentity.member("a").uri()));
    assertTrue(id.isMember("a"));
    assertEquals("urn:baton:peer:a", id.uri());
  }

  @Test
  void aClientsNameIsItsCommonName() throws Exception {
    PeerIdentity id = PeerIdentity.of(issued("ops-tool", "urn:baton:role:operator"));
    assertEquals(PeerIdentity.client("ops-tool", ClientRole.OPERATOR), id);
  }

  @Test
  void otherUrisAreIgnored() throws Exception {
    PeerIdentity id =
        PeerIdentity.of(issued("a", "https://example.org/a", PeerIdentity.member("a").uri()));
    assertEquals(PeerIdentity.member("a"), id);
  }

  @Test
  void aCertificateWithoutABatonUriHasNoIdentity() {
    CertificateException e =
        assertThrows(CertificateException.class, () -> PeerIdentity.of(issued("a")));
    assertTrue(e.getMessage().contains("names no Baton identity"), e.getMessage());
  }

  @Test
  void aCertificateWithTwoIdentitiesHasNone() {
    CertificateException e =
        assertThrows(
            CertificateException.class,
            () ->
                PeerIdentity.of(
                    issued("a", PeerIdentity.member("a").uri(), "urn:baton:role:admin")));
    assertTrue(e.getMessage().contains("more than one"), e.getMessage());
  }

  @Test
  void anUnknownRoleIsRefused() {
    CertificateException e =
        assertThrows(
            CertificateException.class, () -> PeerIdentity.of(issued("a", "urn:baton:role:root")));
    assertTrue(e.getMessage().contains("unknown role root"), e.getMessage());
  }

  @Test
  void aPeerIdOutsideTheAlphabetIsRefused() {
    CertificateException e =
        assertThrows(
            CertificateException.class, () -> PeerIdentity.of(issued("a", "urn:baton:peer:a/b")));
    assertTrue(e.getMessage().contains("does not name an id"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> PeerIdentity.member("a/b"));
  }

  @Test
  void rolesAllowWhatTheySay() {
    assertTrue(!ClientRole.READER.mayWrite() && !ClientRole.READER.mayAdminister());
    assertTrue(ClientRole.OPERATOR.mayWrite() && !ClientRole.OPERATOR.mayAdminister());
    assertTrue(ClientRole.ADMIN.mayWrite() && ClientRole.ADMIN.mayAdminister());
  }
}
