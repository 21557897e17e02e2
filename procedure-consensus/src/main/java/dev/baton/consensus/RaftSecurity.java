package dev.baton.consensus;

import dev.baton.consensus.tls.MemoryKeyStore;
import dev.baton.consensus.tls.TlsSettings;
import java.net.InetSocketAddress;
import java.util.Map;
import javax.net.ssl.X509KeyManager;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;

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

  /**
   * The member's key for every TLS context Ratis builds (its server's, and one per connection to a
   * peer or from a client): made once, so Ratis does not put the key into a PKCS#12 store of its
   * own per context ({@link MemoryKeyStore} says what that costs); null in plaintext.
   */
  private final X509KeyManager keyManager;

  private RaftSecurity(TlsSettings tls, MembershipView members) {
    this.tls = tls;
    this.members = members;
    this.keyManager =
        tls == null ? null : MemoryKeyStore.of(tls.privateKey(), tls.chain()).x509KeyManager();
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

  /** Parameters for a member's Raft server {@code nodeId} (and its connections to the others). */
  Parameters serverParameters(String nodeId) {
    Parameters p = clientParameters();
    if (tls != null) {
      AccessInterceptor access = new AccessInterceptor(new AccessPolicy(members), nodeId);
      GrpcConfigKeys.Server.setServicesCustomizer(p, (builder, types) -> builder.intercept(access));
    }
    return p;
  }

  /** Parameters for a Raft client of the cluster. */
  Parameters clientParameters() {
    Parameters p = new Parameters();
    if (tls != null) {
      GrpcTlsConfig conf =
          GrpcTlsConfig.newBuilder()
              .setKeyManager(keyManager)
              .setTrustManager(MemberTrustManager.of(tls.trustedCertificates(), members))
              .setMutualTls(true)
              .build();
      GrpcConfigKeys.TLS.setConf(p, conf);
    }
    return p;
  }
}
