package dev.baton.confignode.certs;

import dev.baton.consensus.tls.TlsSettings;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Where one party's PEM files are: its certificate, its key (mode 0600) and the CA certificate it
 * trusts; what a node's {@code --tls-cert --tls-key --tls-ca} name.
 *
 * @param cert the certificate
 * @param key its private key
 * @param ca the cluster's CA certificate
 */
public record CertificateFiles(Path cert, Path key, Path ca) {
  /** The files read as TLS settings for a node or a client. */
  public TlsSettings tlsSettings() throws IOException {
    return TlsSettings.fromPem(cert, key, ca);
  }
}
