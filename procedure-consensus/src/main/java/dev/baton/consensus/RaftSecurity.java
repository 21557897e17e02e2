package dev.baton.consensus;

import dev.baton.consensus.tls.TlsSettings;
import java.net.InetSocketAddress;
import java.util.Map;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.security.TlsConf;

/**
 * How the Raft connections of a member or a client are secured, as Ratis parameters: in plaintext,
 * or by mutual TLS with the cluster's CA ({@link MemberTrustManager}) and, on a member's port,
 * every call checked by {@link AccessInterceptor}. Admin and client calls share the member's one
 * port (Ratis' default), so one TLS configuration covers all of them.
 */
final class RaftSecurity {
  private static final RaftSecurity PLAINTEXT =
      new RaftSecurity(null, MembershipView.fixed(Map.of()));

  private final TlsSettings tls;
  private final MembershipView members;

  private RaftSecurity(TlsSettings tls, MembershipView members) {
    this.tls = tls;
    this.members = members;
  }

  static RaftSecurity plaintext() {
    return PLAINTEXT;
  }

  /** Mutual TLS with {@code tls} among {@code peers} (every member's address by peer id). */
  static RaftSecurity mutualTls(TlsSettings tls, Map<String, InetSocketAddress> peers) {
    return new RaftSecurity(tls, MembershipView.fixed(peers));
  }

  /** {@link #mutualTls}, or {@link #plaintext} when {@code tls} is null. */
  static RaftSecurity of(TlsSettings tls, Map<String, InetSocketAddress> peers) {
    return tls == null ? plaintext() : mutualTls(tls, peers);
  }

  /**
   * Mutual TLS among the members {@code members} sees (they change with the group's configuration),
   * or {@link #plaintext} when {@code tls} is null.
   */
  static RaftSecurity of(TlsSettings tls, MembershipView members) {
    return tls == null ? plaintext() : new RaftSecurity(tls, members);
  }

  boolean isTls() {
    return tls != null;
  }

  /**
   * Parameters for a member's Raft server {@code nodeId} (and its connections to the others); with
   * or without TLS, the server runs each call where {@link ReadIndexCallExecutor} says.
   */
  Parameters serverParameters(String nodeId) {
    Parameters p = clientParameters();
    ReadIndexCallExecutor executors = new ReadIndexCallExecutor();
    if (tls != null) {
      AccessInterceptor access = new AccessInterceptor(new AccessPolicy(members), nodeId);
      GrpcConfigKeys.Server.setServicesCustomizer(
          p, (builder, types) -> builder.intercept(access).callExecutor(executors));
    } else {
      GrpcConfigKeys.Server.setServicesCustomizer(
          p, (builder, types) -> builder.callExecutor(executors));
    }
    return p;
  }

  /** Parameters for a Raft client of the cluster. */
  Parameters clientParameters() {
    Parameters p = new Parameters();
    if (tls != null) {
      GrpcTlsConfig conf =
          GrpcTlsConfig.newBuilder()
              .setPrivateKey(new TlsConf.PrivateKeyConf(tls.privateKey()))
              .setKeyCertificates(new TlsConf.CertificatesConf(tls.chain()))
              .setTrustManager(MemberTrustManager.of(tls.trustedCertificates(), members))
              .setMutualTls(true)
              .build();
      GrpcConfigKeys.TLS.setConf(p, conf);
    }
    return p;
  }
}
