package dev.baton.certs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What a throwaway CA issues, read back with the JDK. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CertificateAuthorityTest {
  /** The type numbers of a DNS name, a URI and an IP address among subject alternative names. */
  static final int DNS = 2;

  static final int URI = 6;
  static final int IP = 7;

  static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
  static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

  @TempDir Path dir;

  @Test
  void issuesACertificateSignedByTheCaWithTheNamesAsked() throws Exception {
    CertificateAuthority ca = CertificateAuthority.create("test-ca");
    assertTrue(ca.certificate().getBasicConstraints() >= 0, "a CA certificate");
    IssuedCertificate issued =
        ca.issue(
            CertificateRequest.named("node-a")
                .withUri("urn:example:a")
                .withHosts(List.of("127.0.0.1", "localhost", "::1"))
                .withUsages(EnumSet.of(Usage.SERVER, Usage.CLIENT)));
    X509Certificate cert = issued.certificate();
    cert.verify(ca.certificate().getPublicKey());
    cert.checkValidity();
    assertEquals(-1, cert.getBasicConstraints(), "not a CA");
    assertEquals("CN=node-a", cert.getSubjectX500Principal().getName());
    assertEquals(
        List.of(
            List.of(URI, "urn:example:a"),
            List.of(IP, "127.0.0.1"),
            List.of(DNS, "localhost"),
            List.of(IP, "0:0:0:0:0:0:0:1")),
        List.copyOf(cert.getSubjectAlternativeNames()));
    assertEquals(List.of(SERVER_AUTH, CLIENT_AUTH), cert.getExtendedKeyUsage());
  }

  @Test
  void aClientCertificateIsForClientsOnly() throws Exception {
    X509Certificate cert =
        CertificateAuthority.create("test-ca").issue(CertificateRequest.named("c")).certificate();
    assertEquals(List.of(CLIENT_AUTH), cert.getExtendedKeyUsage());
  }

  @Test
  void writesPemThatTheJdkReadsAndAKeyOnlyItsOwnerReads() throws Exception {
    CertificateAuthority ca = CertificateAuthority.create("test-ca");
    IssuedCertificate issued = ca.issue(CertificateRequest.named("c"));
    Path cert = dir.resolve("sub/cert.pem");
    Path key = dir.resolve("sub/key.pem");
    issued.writePem(cert, key);
    issued.writePem(cert, key); // again: the key file is made anew, never wider
    try (var in = Files.newInputStream(cert)) {
      assertEquals(
          issued.certificate(),
          java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    assertTrue(Files.readString(key).startsWith("-----BEGIN PRIVATE KEY-----"));
    assertEquals(PemFiles.KEY_PERMISSIONS, Files.getPosixFilePermissions(key));
  }

  @Test
  void requestsAreChecked() {
    assertThrows(IllegalArgumentException.class, () -> CertificateRequest.named(" "));
    assertThrows(
        IllegalArgumentException.class,
        () -> CertificateRequest.named("c").withUsages(EnumSet.noneOf(Usage.class)));
    assertThrows(
        IllegalArgumentException.class,
        () -> CertificateAuthority.create("ca", java.time.Duration.ZERO));
  }
}
