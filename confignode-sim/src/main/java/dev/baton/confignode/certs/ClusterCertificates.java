package dev.baton.confignode.certs;

import dev.baton.certs.CertificateAuthority;
import dev.baton.certs.CertificateRequest;
import dev.baton.certs.IssuedCertificate;
import dev.baton.certs.Usage;
import dev.baton.consensus.tls.ClientRole;
import dev.baton.consensus.tls.PeerIdentity;
import java.io.IOException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Function;

/**
 * The certificates of a cluster for drills and tests, from a throwaway CA whose key is never
 * written: one per ConfigNode naming its node id as a member, one per DataNode, one client
 * certificate per role, each naming the identity as {@link PeerIdentity} defines and the hosts
 * others reach it by. {@link #write} lays them out under a directory:
 *
 * <pre>
 * DIR/ca.pem                                   the CA certificate every party trusts
 * DIR/nodes/ID/cert.pem, key.pem               ConfigNode ID: member ID, server and client use
 * DIR/datanodes/N/cert.pem, key.pem            DataNode N (1..count): server and client use
 * DIR/clients/ROLE/cert.pem, key.pem           client "ROLE" with role ROLE (reader, operator, admin)
 * </pre>
 *
 * Keys are PKCS#8 PEM files readable by their owner only (0600).
 */
public final class ClusterCertificates {
  /** The hosts a local cluster's certificates name: every process listens on loopback. */
  public static final List<String> LOOPBACK_HOSTS = List.of("127.0.0.1", "localhost");

  static final String CA_FILE = "ca.pem";
  static final String CERT_FILE = "cert.pem";
  static final String KEY_FILE = "key.pem";

  private final CertificateAuthority ca;

  private ClusterCertificates(CertificateAuthority ca) {
    this.ca = ca;
  }

  /** A new throwaway CA named {@code name}. */
  public static ClusterCertificates create(String name) {
    return new ClusterCertificates(CertificateAuthority.create(name));
  }

  /** The CA certificate. */
  public X509Certificate caCertificate() {
    return ca.certificate();
  }

  /** A certificate of the member {@code nodeId}, reached at {@code hosts}. */
  public IssuedCertificate member(String nodeId, List<String> hosts) {
    return ca.issue(
        CertificateRequest.named(nodeId)
            .withUri(PeerIdentity.member(nodeId).uri())
            .withHosts(hosts)
            .withUsages(EnumSet.of(Usage.SERVER, Usage.CLIENT)));
  }

  /** A certificate of the DataNode {@code id}, reached at {@code hosts}. */
  public IssuedCertificate dataNode(String id, List<String> hosts) {
    return ca.issue(
        CertificateRequest.named("datanode-" + id)
            .withUri(PeerIdentity.dataNode(id).uri())
            .withHosts(hosts)
            .withUsages(EnumSet.of(Usage.SERVER, Usage.CLIENT)));
  }

  /** A client certificate of {@code name} (its CN) with {@code role}. */
  public IssuedCertificate client(String name, ClientRole role) {
    return ca.issue(CertificateRequest.named(name).withUri(PeerIdentity.client(name, role).uri()));
  }

  /** Writes the CA certificate to {@code dir/ca.pem}; returns its path. */
  public Path writeCa(Path dir) throws IOException {
    Path file = dir.resolve(CA_FILE);
    ca.writeCertificate(file);
    return file;
  }

  /**
   * Writes a certificate of the member {@code nodeId}, reached at {@code hosts}, into the layout
   * under {@code dir} (see the class comment; the CA file there is {@link #writeCa}'s).
   */
  public CertificateFiles writeMember(Path dir, String nodeId, List<String> hosts)
      throws IOException {
    return write(member(nodeId, hosts), ClusterFiles.memberDir(dir, nodeId), dir.resolve(CA_FILE));
  }

  /**
   * Writes a certificate of DataNode {@code id}, reached at {@code hosts}, as {@link #writeMember}.
   */
  public CertificateFiles writeDataNode(Path dir, String id, List<String> hosts)
      throws IOException {
    return write(dataNode(id, hosts), ClusterFiles.dataNodeDir(dir, id), dir.resolve(CA_FILE));
  }

  /** Writes a client certificate with {@code role} (its name too), as {@link #writeMember}. */
  public CertificateFiles writeClient(Path dir, ClientRole role) throws IOException {
    return write(
        client(role.certificateName(), role),
        ClusterFiles.clientDir(dir, role),
        dir.resolve(CA_FILE));
  }

  /** Writes {@code issued} to {@code dir/cert.pem} and {@code dir/key.pem}. */
  private static CertificateFiles write(IssuedCertificate issued, Path dir, Path caFile)
      throws IOException {
    Path cert = dir.resolve(CERT_FILE);
    Path key = dir.resolve(KEY_FILE);
    issued.writePem(cert, key);
    return new CertificateFiles(cert, key, caFile);
  }

  /**
   * Makes a new CA and writes the certificates of a cluster under {@code dir} (see the class
   * comment): one per node id of {@code nodeIds}, DataNodes 1 to {@code dataNodes}, a client per
   * role; each member and DataNode names {@code hosts}.
   */
  public static ClusterFiles write(
      Path dir, List<String> nodeIds, int dataNodes, List<String> hosts) throws IOException {
    return write(dir, nodeIds, id -> hosts, dataNodes, hosts);
  }

  /**
   * As {@link #write(Path, List, int, List)}, each member naming the hosts {@code memberHosts}
   * gives for its id (members on hosts of their own), each DataNode {@code dataNodeHosts}.
   */
  public static ClusterFiles write(
      Path dir,
      List<String> nodeIds,
      Function<String, List<String>> memberHosts,
      int dataNodes,
      List<String> dataNodeHosts)
      throws IOException {
    if (dataNodes < 0) {
      throw new IllegalArgumentException("a number of DataNodes is 0 or more: " + dataNodes);
    }
    ClusterCertificates certs = create("baton-ca-" + dir.getFileName());
    certs.writeCa(dir);
    for (String id : nodeIds) {
      certs.writeMember(dir, id, memberHosts.apply(id));
    }
    for (int i = 1; i <= dataNodes; i++) {
      certs.writeDataNode(dir, Integer.toString(i), dataNodeHosts);
    }
    for (ClientRole role : ClientRole.values()) {
      certs.writeClient(dir, role);
    }
    return new ClusterFiles(dir);
  }
}
