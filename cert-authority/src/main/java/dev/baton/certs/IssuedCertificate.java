package dev.baton.certs;

import java.io.IOException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * A certificate and its private key, issued by a {@link CertificateAuthority}.
 *
 * @param certificate the certificate
 * @param privateKey its key
 * @param issuer the CA certificate that signed it
 */
public record IssuedCertificate(
    X509Certificate certificate, PrivateKey privateKey, X509Certificate issuer) {
  /** The chain a TLS peer presents: the certificate alone, its CA being the trust anchor. */
  public List<X509Certificate> chain() {
    return List.of(certificate);
  }

  /**
   * Writes the certificate (PEM) to {@code certFile} and the key (PKCS#8 PEM, readable by its owner
   * only) to {@code keyFile}, creating parent directories.
   */
  public void writePem(Path certFile, Path keyFile) throws IOException {
    PemFiles.writeCertificates(certFile, chain());
    PemFiles.writePrivateKey(keyFile, privateKey);
  }
}
