package dev.baton.confignode.cli;

import dev.baton.consensus.tls.TlsSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The flags of a process' own certificate for mutual TLS, which {@code node} and {@code datanode}
 * mix in ({@code @Mixin}): {@code --tls-cert --tls-key --tls-ca}, all three or none, and {@code
 * --insecure} to accept a non-loopback bind without them.
 */
final class TlsFlags {
  /** The files of {@code --tls-cert}, {@code --tls-key} and {@code --tls-ca}. */
  private static final int TLS_FILES = 3;

  @Option(
      names = "--tls-cert",
      paramLabel = "PEM",
      description =
          "this process' certificate chain (PEM) naming its id (a node: member, a DataNode:"
              + " DataNode), for mutual TLS")
  Path cert;

  @Option(
      names = "--tls-key",
      paramLabel = "PEM",
      description = "the private key of --tls-cert (PEM, PKCS#8)")
  Path key;

  @Option(
      names = "--tls-ca",
      paramLabel = "PEM",
      description = "the CA certificate every member's and client's certificate must come from")
  Path ca;

  @Option(
      names = "--insecure",
      description = "allow a non-loopback bind without TLS (a WARN is logged at start)")
  boolean insecure;

  /**
   * The TLS settings the flags name, empty without them.
   *
   * @throws IllegalArgumentException if only some are given or a file cannot be read, saying which
   */
  Optional<TlsSettings> settings() {
    int given = (cert == null ? 0 : 1) + (key == null ? 0 : 1) + (ca == null ? 0 : 1);
    if (given == 0) {
      return Optional.empty();
    }
    if (given != TLS_FILES) {
      throw new IllegalArgumentException(
          "--tls-cert, --tls-key and --tls-ca go together: give all three, or none");
    }
    try {
      return Optional.of(TlsSettings.fromPem(cert, key, ca));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("--tls-cert/--tls-key/--tls-ca: " + e.getMessage(), e);
    }
  }
}
