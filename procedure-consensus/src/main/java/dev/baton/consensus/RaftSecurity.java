package dev.baton.consensus;

import dev.baton.consensus.tls.MemoryKeyStore;
import dev.baton.consensus.tls.TlsSettings;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.Executor;
import javax.net.ssl.X509KeyManager;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.grpc.GrpcUtil;
import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.thirdparty.io.grpc.ManagedChannel;
import org.apache.ratis.thirdparty.io.grpc.netty.NegotiationType;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyChannelBuilder;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslContext;

/**
 * How the Raft connections of a member or a client are secured, as Ratis parameters: in plaintext,
 * or by mutual TLS with the cluster's CA ({@link MemberTrustManager}) and, on a member's port,
 * every call checked by {@link AccessInterceptor}. Admin and client calls share the member's one
 * port (Ratis' default), so one TLS configuration covers all of them.
 */
final class RaftSecurity {
  /**
   * The HTTP/2 flow-control window of {@link #channelTo}'s channels, gRPC's default size. Set
   * explicitly, as Ratis sets its own channels', so gRPC does not tune it with bandwidth probes (a
   * ping after answers it receives: more wake-ups on both ends for messages of a few bytes).
   */
  static final int CHANNEL_WINDOW_BYTES = 1 << 20;

  /** The largest answer {@link #channelTo}'s channels accept: Baton's calls answer a few bytes. */
  static final int CHANNEL_MAX_MESSAGE_BYTES = 64 << 10;

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

  /** The TLS context of {@link #channelTo}'s channels, made at the first; null before. */
  private volatile SslContext sslContext;

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

  /**
   * Parameters for a member's Raft server {@code nodeId} (and its connections to the others); its
   * port also serves {@code readIndex}, Baton's call between members, on the transport thread, and
   * Ratis' own calls on {@code raftCalls}.
   */
  Parameters serverParameters(String nodeId, ReadIndexService readIndex, Executor raftCalls) {
    Parameters p = clientParameters();
    AccessInterceptor access =
        tls == null ? null : new AccessInterceptor(new AccessPolicy(members), nodeId);
    GrpcConfigKeys.Server.setServicesCustomizer(
        p,
        (builder, types) -> {
          if (types.contains(GrpcServices.Type.SERVER)) {
            builder
                .directExecutor()
                .addService(readIndex.definition())
                .callExecutor(ReadIndexService.executors(raftCalls));
          }
          return access == null ? builder : builder.intercept(access);
        });
    return p;
  }

  /** Parameters for a Raft client of the cluster. */
  Parameters clientParameters() {
    Parameters p = new Parameters();
    if (tls != null) {
      GrpcConfigKeys.TLS.setConf(p, tlsConfig());
    }
    return p;
  }

  private GrpcTlsConfig tlsConfig() {
    return GrpcTlsConfig.newBuilder()
        .setKeyManager(keyManager)
        .setTrustManager(MemberTrustManager.of(tls.trustedCertificates(), members))
        .setMutualTls(true)
        .build();
  }

  /**
   * A gRPC channel to a member's Raft port at {@code address} (host:port), secured as Ratis' own
   * connections are, for Baton's call between members. Its answers complete on the transport thread
   * that read them: whoever waits for one must move heavy work off it.
   */
  ManagedChannel channelTo(String address) {
    NettyChannelBuilder builder =
        NettyChannelBuilder.forTarget(address)
            .proxyDetector(a -> null)
            .directExecutor()
            .flowControlWindow(CHANNEL_WINDOW_BYTES)
            .maxInboundMessageSize(CHANNEL_MAX_MESSAGE_BYTES);
    if (tls == null) {
      builder.negotiationType(NegotiationType.PLAINTEXT);
    } else {
      builder.useTransportSecurity().sslContext(clientSslContext());
    }
    return builder.build();
  }

  private SslContext clientSslContext() {
    SslContext context = sslContext;
    if (context == null) {
      synchronized (this) {
        if (sslContext == null) {
          sslContext = GrpcUtil.buildSslContextForClient(tlsConfig());
        }
        context = sslContext;
      }
    }
    return context;
  }
}
