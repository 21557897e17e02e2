package dev.baton.confignode.certs;

import dev.baton.consensus.tls.ClientRole;
import java.nio.file.Path;

/**
 * The PEM files {@link ClusterCertificates#write} laid out under a directory, by party.
 *
 * @param dir the directory
 */
public record ClusterFiles(Path dir) {
  /** The CA certificate every party trusts. */
  public Path ca() {
    return dir.resolve(ClusterCertificates.CA_FILE);
  }

  /** The files of the ConfigNode (member) {@code nodeId}. */
  public CertificateFiles member(String nodeId) {
    return files(memberDir(dir, nodeId));
  }

  /** The files of DataNode {@code id}. */
  public CertificateFiles dataNode(String id) {
    return files(dataNodeDir(dir, id));
  }

  /** The files of the client with {@code role}. */
  public CertificateFiles client(ClientRole role) {
    return files(clientDir(dir, role));
  }

  private CertificateFiles files(Path partyDir) {
    return new CertificateFiles(
        partyDir.resolve(ClusterCertificates.CERT_FILE),
        partyDir.resolve(ClusterCertificates.KEY_FILE),
        ca());
  }

  static Path memberDir(Path dir, String nodeId) {
    return dir.resolve("nodes").resolve(nodeId);
  }

  static Path dataNodeDir(Path dir, String id) {
    return dir.resolve("datanodes").resolve(id);
  }

  static Path clientDir(Path dir, ClientRole role) {
    return dir.resolve("clients").resolve(role.certificateName());
  }
}
