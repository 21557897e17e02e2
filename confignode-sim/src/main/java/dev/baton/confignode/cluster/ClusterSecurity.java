package dev.baton.confignode.cluster;

import dev.baton.confignode.auth.Role;
import dev.baton.confignode.certs.CertificateFiles;
import dev.baton.confignode.certs.ClusterCertificates;
import dev.baton.confignode.certs.ClusterFiles;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.datanode.DataNodeConnector;
import dev.baton.confignode.http.TlsIdentity;
import dev.baton.consensus.tls.ClientRole;
import dev.baton.consensus.tls.TlsSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;

/**
 * How a local cluster is secured, as a production cluster would be, with certificates of one
 * throwaway CA ({@link ClusterCertificates}) made when the cluster is created: its ConfigNodes
 * require tokens ({@link ClusterTokens}; the cluster's clients send the admin's), serve their admin
 * API over HTTPS and talk Raft over mutual TLS; its DataNodes serve HTTPS to certificates of the CA
 * only, accept commands from the ConfigNodes' member certificates only, and the cluster's own
 * clients of them (state reads, fault control) present the admin client certificate. Or not at all,
 * to compare.
 */
final class ClusterSecurity {
  /** The directory, in the cluster's, of the certificates. */
  static final String CERTIFICATES_DIR = "certs";

  /**
   * The certificate the ConfigNodes started with the cluster serve their admin API with, naming all
   * their hosts; a node added later serves one of its own ({@code admin-api-ID}, naming its hosts).
   * All of one CA, which clients and a follower forwarding to the leader trust.
   */
  static final String HTTPS_CERTIFICATE = "admin-api";

  /** The tokens of a secured cluster; null for one that is not. */
  private final ClusterTokens tokens;

  /** The CA of a secured cluster; null for one that is not. */
  private final ClusterCertificates ca;

  /** Where the certificates are written; null for a cluster that is not secured. */
  private final ClusterFiles files;

  /** How the cluster's clients reach its DataNodes. */
  private final DataNodeConnector dataNodeClients;

  private TlsIdentity https;

  /** What clients of the admin APIs trust: the cluster's CA, so a node's own certificate too. */
  private SSLContext httpsTrust;

  /**
   * The ConfigNodes added to the running cluster: each serves its admin API with a certificate of
   * its own naming its hosts (the first ones share one naming all of theirs).
   */
  private final Set<String> ownHttps = ConcurrentHashMap.newKeySet();

  private ClusterSecurity(
      ClusterTokens tokens,
      ClusterCertificates ca,
      ClusterFiles files,
      DataNodeConnector dataNodeClients) {
    this.tokens = tokens;
    this.ca = ca;
    this.files = files;
    this.dataNodeClients = dataNodeClients;
  }

  /**
   * A secured cluster's: its token file, a new CA and the admin client's certificate written into
   * {@code dir}.
   */
  static ClusterSecurity secured(Path dir) throws IOException {
    ClusterTokens tokens = ClusterTokens.write(dir);
    Path certs = Files.createDirectories(dir.resolve(CERTIFICATES_DIR));
    ClusterCertificates ca = ClusterCertificates.create("baton-ca-" + dir.getFileName());
    ca.writeCa(certs);
    CertificateFiles admin = ca.writeClient(certs, ClientRole.ADMIN);
    return new ClusterSecurity(
        tokens, ca, new ClusterFiles(certs), DataNodeConnector.mutualTls(admin.tlsSettings()));
  }

  /**
   * Nothing: anyone on loopback may call the ConfigNodes and DataNodes, which talk Raft and HTTP in
   * plain text.
   */
  static ClusterSecurity none() {
    return new ClusterSecurity(null, null, null, DataNodeConnector.plain());
  }

  boolean on() {
    return tokens != null;
  }

  /**
   * Makes the certificates of the ConfigNodes {@code hostsById} names, each naming the hosts it
   * maps the node to, and of the admin API, naming all of them.
   */
  void issueCertificates(Map<String, List<String>> hostsById) throws IOException {
    if (!on()) {
      return;
    }
    List<String> names = new ArrayList<>(hostsById.keySet());
    names.add(HTTPS_CERTIFICATE);
    List<String> everyHost = hostsById.values().stream().flatMap(List::stream).distinct().toList();
    for (String name : names) {
      ca.writeMember(files.dir(), name, hostsById.getOrDefault(name, everyHost));
    }
    CertificateFiles api = files.member(HTTPS_CERTIFICATE);
    https = TlsIdentity.fromPem(api.cert(), api.key());
    httpsTrust = TlsIdentity.trusting(files.ca());
  }

  /**
   * Makes the certificates of one more ConfigNode {@code id}, added to the running cluster: its
   * member certificate and its admin API's, each naming {@code hosts}.
   */
  void issueCertificate(String id, List<String> hosts) throws IOException {
    if (on()) {
      ca.writeMember(files.dir(), id, hosts);
      ca.writeMember(files.dir(), HTTPS_CERTIFICATE + "-" + id, hosts);
      ownHttps.add(id);
    }
  }

  /** The flags of the ConfigNode {@code id}'s command that secure it. */
  List<String> nodeFlags(String id) {
    if (!on()) {
      return List.of();
    }
    List<String> flags = new ArrayList<>(List.of("--tokens", tokens.file().toString()));
    if (https != null) {
      CertificateFiles api =
          files.member(ownHttps.contains(id) ? HTTPS_CERTIFICATE + "-" + id : HTTPS_CERTIFICATE);
      flags.addAll(tlsFlags(files.member(id)));
      flags.addAll(
          List.of("--http-cert", api.cert().toString(), "--http-key", api.key().toString()));
    }
    return flags;
  }

  /** The TLS settings of a Raft client with the operator's certificate; empty when not secured. */
  Optional<TlsSettings> raftClientTls() throws IOException {
    if (!on()) {
      return Optional.empty();
    }
    CertificateFiles operator = files.client(ClientRole.OPERATOR);
    if (!Files.exists(operator.cert())) {
      ca.writeClient(files.dir(), ClientRole.OPERATOR);
    }
    return Optional.of(operator.tlsSettings());
  }

  /**
   * The flags of DataNode {@code id}'s command that secure it; its certificate, naming {@code
   * hosts}, is made at its first start.
   */
  List<String> dataNodeFlags(int id, List<String> hosts) throws IOException {
    if (!on()) {
      return List.of();
    }
    String name = Integer.toString(id);
    CertificateFiles mine = files.dataNode(name);
    if (!Files.exists(mine.cert())) {
      ca.writeDataNode(files.dir(), name, hosts);
    }
    return tlsFlags(mine);
  }

  private static List<String> tlsFlags(CertificateFiles mine) {
    return List.of(
        "--tls-cert", mine.cert().toString(),
        "--tls-key", mine.key().toString(),
        "--tls-ca", mine.ca().toString());
  }

  /** How the cluster's clients (tests, drill, chaos) reach its DataNodes. */
  DataNodeConnector dataNodeClients() {
    return dataNodeClients;
  }

  /** {@code client} trusting the admin API's certificate and sending the admin's token. */
  NodeApiClient secure(NodeApiClient client) {
    if (!on()) {
      return client;
    }
    NodeApiClient trusting = https == null ? client : client.withTls(httpsTrust);
    return trusting.withToken(tokens.token(Role.ADMIN));
  }
}
