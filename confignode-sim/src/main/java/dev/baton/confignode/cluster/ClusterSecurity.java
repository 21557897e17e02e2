package dev.baton.confignode.cluster;

import dev.baton.confignode.auth.Role;
import dev.baton.confignode.certs.CertificateFiles;
import dev.baton.confignode.certs.ClusterCertificates;
import dev.baton.confignode.certs.ClusterFiles;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.TlsIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * How a local cluster's ConfigNodes are secured, as a production cluster would be: they require
 * tokens ({@link ClusterTokens}; the cluster's clients send the admin's), serve their admin API
 * over HTTPS and talk Raft over mutual TLS, with certificates of a throwaway CA ({@link
 * ClusterCertificates}) made when the ConfigNodes start. Or not at all, to compare.
 */
final class ClusterSecurity {
  /** The directory, in the cluster's, of the ConfigNodes' certificates. */
  static final String CERTIFICATES_DIR = "certs";

  /**
   * The certificate every ConfigNode serves its admin API with: one for all, so that clients and a
   * follower forwarding to the leader trust it alike.
   */
  static final String HTTPS_CERTIFICATE = "admin-api";

  /** The tokens of a secured cluster; null for one that is not. */
  private final ClusterTokens tokens;

  private ClusterCertificates ca;
  private ClusterFiles certificates;
  private TlsIdentity https;

  private ClusterSecurity(ClusterTokens tokens) {
    this.tokens = tokens;
  }

  /** A secured cluster's, its token file written into {@code dir}. */
  static ClusterSecurity secured(Path dir) throws IOException {
    return new ClusterSecurity(ClusterTokens.write(dir));
  }

  /** Nothing: anyone on loopback may call the ConfigNodes, which talk Raft in plain text. */
  static ClusterSecurity none() {
    return new ClusterSecurity(null);
  }

  boolean on() {
    return tokens != null;
  }

  /** Makes the certificates of {@code nodeIds} (and of the admin API) under {@code dir}. */
  void issueCertificates(Path dir, Collection<String> nodeIds) throws IOException {
    if (!on()) {
      return;
    }
    List<String> names = new ArrayList<>(nodeIds);
    names.add(HTTPS_CERTIFICATE);
    ca = ClusterCertificates.create("baton-ca-" + dir.getFileName());
    certificates =
        ca.writeCluster(
            Files.createDirectories(dir.resolve(CERTIFICATES_DIR)),
            names,
            0,
            ClusterCertificates.LOOPBACK_HOSTS);
    CertificateFiles api = certificates.member(HTTPS_CERTIFICATE);
    https = TlsIdentity.fromPem(api.cert(), api.key());
  }

  /** Makes the certificate of one more ConfigNode {@code id}, added to the running cluster. */
  void issueCertificate(String id) throws IOException {
    if (ca != null) {
      ca.writeMember(certificates.dir(), id, ClusterCertificates.LOOPBACK_HOSTS);
    }
  }

  /** The flags of the ConfigNode {@code id}'s command that secure it. */
  List<String> nodeFlags(String id) {
    if (!on()) {
      return List.of();
    }
    List<String> flags = new ArrayList<>(List.of("--tokens", tokens.file().toString()));
    if (certificates != null) {
      CertificateFiles mine = certificates.member(id);
      CertificateFiles api = certificates.member(HTTPS_CERTIFICATE);
      flags.addAll(
          List.of(
              "--tls-cert", mine.cert().toString(),
              "--tls-key", mine.key().toString(),
              "--tls-ca", mine.ca().toString(),
              "--http-cert", api.cert().toString(),
              "--http-key", api.key().toString()));
    }
    return flags;
  }

  /** {@code client} trusting the admin API's certificate and sending the admin's token. */
  NodeApiClient secure(NodeApiClient client) {
    if (!on()) {
      return client;
    }
    NodeApiClient trusting = https == null ? client : client.withTls(https.trustContext());
    return trusting.withToken(tokens.token(Role.ADMIN));
  }
}
