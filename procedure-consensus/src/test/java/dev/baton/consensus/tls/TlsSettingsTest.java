package dev.baton.consensus.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.certs.CertificateAuthority;
import dev.baton.certs.CertificateRequest;
import dev.baton.certs.IssuedCertificate;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** TLS material read from PEM files as a throwaway CA writes them. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TlsSettingsTest {
  @TempDir Path dir;

  @Test
  void readsTheCertificateKeyAndCaWritten() throws Exception {
    CertificateAuthority ca = CertificateAuthority.create("test-ca");
    IssuedCertificate issued =
        ca.issue(CertificateRequest.named("a").withUri(PeerIdentity.member("a").uri()));
    issued.writePem(dir.resolve("cert.pem"), dir.resolve("key.pem"));
    ca.writeCertificate(dir.resolve("ca.pem"));

    TlsSettings tls =
        TlsSettings.fromPem(dir.resolve("cert.pem"), dir.resolve("key.pem"), dir.resolve("ca.pem"));
    assertEquals(issued.certificate(), tls.certificate());
    assertEquals(issued.privateKey(), tls.privateKey());
    assertEquals(ca.certificate(), tls.trustedCertificates().get(0));
    assertEquals(PeerIdentity.member("a"), tls.identity());
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("key.pem"))));
  }

  @Test
  void aKeyFileWithoutAPkcs8KeySaysHowToConvertOne() throws Exception {
    Path cert = dir.resolve("cert.pem");
    CertificateAuthority ca = CertificateAuthority.create("test-ca");
    ca.writeCertificate(cert);
    Path key = Files.writeString(dir.resolve("key.pem"), "-----BEGIN EC PRIVATE KEY-----\n");
    IOException e = assertThrows(IOException.class, () -> TlsSettings.fromPem(cert, key, cert));
    assertTrue(e.getMessage().contains("openssl pkcs8 -topk8 -nocrypt"), e.getMessage());
  }

  @Test
  void aMissingFileIsNamed() {
    Path missing = dir.resolve("nowhere.pem");
    IOException e =
        assertThrows(IOException.class, () -> TlsSettings.fromPem(missing, missing, missing));
    assertTrue(e.getMessage().contains("nowhere.pem"), e.getMessage());
  }
}
