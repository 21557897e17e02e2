package dev.baton.consensus.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.certs.CertificateAuthority;
import dev.baton.certs.CertificateRequest;
import dev.baton.certs.IssuedCertificate;
import java.security.UnrecoverableKeyException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.X509KeyManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A key held in memory for TLS: what the key managers present, and under which password. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MemoryKeyStoreTest {
  private static IssuedCertificate issued() throws Exception {
    CertificateAuthority ca = CertificateAuthority.create("test-ca");
    return ca.issue(CertificateRequest.named("a").withUri(PeerIdentity.member("a").uri()));
  }

  @Test
  void theKeyManagerPresentsTheKeyAndItsChain() throws Exception {
    IssuedCertificate issued = issued();
    X509KeyManager km = MemoryKeyStore.of(issued.privateKey(), issued.chain()).x509KeyManager();

    String alias = km.chooseServerAlias(issued.privateKey().getAlgorithm(), null, null);
    assertEquals(MemoryKeyStore.ALIAS, alias);
    assertEquals(issued.privateKey(), km.getPrivateKey(alias));
    assertArrayEquals(
        issued.chain().toArray(new X509Certificate[0]), km.getCertificateChain(alias));
  }

  @Test
  void theStoreGivesTheKeyBackUnderItsPasswordOnly() throws Exception {
    IssuedCertificate issued = issued();
    MemoryKeyStore store = MemoryKeyStore.of(issued.privateKey(), issued.chain());

    assertEquals(
        issued.privateKey(),
        store.keyStore().getKey(MemoryKeyStore.ALIAS, store.password().toCharArray()));
    assertThrows(
        UnrecoverableKeyException.class,
        () -> store.keyStore().getKey(MemoryKeyStore.ALIAS, "wrong".toCharArray()));
  }

  @Test
  void twoStoresHaveTwoPasswords() throws Exception {
    IssuedCertificate issued = issued();
    assertNotEquals(
        MemoryKeyStore.of(issued.privateKey(), issued.chain()).password(),
        MemoryKeyStore.of(issued.privateKey(), issued.chain()).password());
  }

  @Test
  void aKeyWithoutItsCertificateIsRefused() throws Exception {
    IssuedCertificate issued = issued();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> MemoryKeyStore.of(issued.privateKey(), List.of()));
    assertTrue(e.getMessage().contains("certificate"), e.getMessage());
  }
}
