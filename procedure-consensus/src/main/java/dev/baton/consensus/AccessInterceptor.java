package dev.baton.consensus;

import dev.baton.consensus.tls.PeerIdentity;
import java.net.SocketAddress;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.apache.ratis.grpc.GrpcUtil;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.ReadIndexRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.thirdparty.io.grpc.ForwardingServerCall;
import org.apache.ratis.thirdparty.io.grpc.ForwardingServerCallListener;
import org.apache.ratis.thirdparty.io.grpc.Grpc;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces {@link AccessPolicy} on every call to a member's Raft port: reads the caller's
 * certificate from the call's TLS session (the handshake already checked that it chains to the
 * cluster's CA), refuses a call its identity may not make, and checks each message of a call whose
 * messages matter: the requestor of every Raft request between members, the type of every request
 * of a reader.
 *
 * <p>A refused call is closed with {@code UNAUTHENTICATED} (no identity) or {@code
 * PERMISSION_DENIED} and the reason. Refusals of client and admin calls name {@link
 * SecurityException} the way Ratis' own errors name their type, so a Ratis client gives up at once
 * with the reason instead of retrying. Each reason is logged at WARN at most once per {@link
 * #LOG_EVERY_MS} (a refused member retries every heartbeat).
 */
final class AccessInterceptor implements ServerInterceptor {
  private static final Logger LOG = LoggerFactory.getLogger(AccessInterceptor.class);

  /** A refusal with the same reason is logged again after this long. */
  static final long LOG_EVERY_MS = TimeUnit.MINUTES.toMillis(1);

  /** Reasons remembered for {@link #LOG_EVERY_MS}; past this many the memory starts over. */
  static final int LOGGED_REASONS_MAX = 1_000;

  /** The caller's identity, kept in its TLS session: parsed once per connection. */
  private static final String SESSION_IDENTITY = "dev.baton.consensus.identity";

  private final AccessPolicy policy;
  private final String nodeId;
  private final Map<String, Long> lastLogged = new ConcurrentHashMap<>();

  AccessInterceptor(AccessPolicy policy, String nodeId) {
    this.policy = policy;
    this.nodeId = nodeId;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    AccessPolicy.Service service =
        AccessPolicy.Service.of(call.getMethodDescriptor().getServiceName());
    PeerIdentity who;
    try {
      who = identity(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
    } catch (CertificateException e) {
      refuse(call, Status.UNAUTHENTICATED, e.getMessage(), service);
      return new ServerCall.Listener<>() {};
    }
    String refused = policy.refuseCall(who, service);
    if (refused != null) {
      refuse(call, Status.PERMISSION_DENIED, refused, service);
      return new ServerCall.Listener<>() {};
    }
    if (service == AccessPolicy.Service.SERVER) {
      return checkEach(
          call,
          headers,
          next,
          service,
          message ->
              policy.refuseServerRequest(
                  who, requestor(message), message instanceof RequestVoteRequestProto));
    }
    if (service == AccessPolicy.Service.CLIENT && !policy.allowsEveryClientRequest(who)) {
      return checkEach(
          call,
          headers,
          next,
          service,
          message ->
              message instanceof RaftClientRequestProto request
                  ? policy.refuseClientRequest(who, request.getTypeCase())
                  : "an unexpected message " + message.getClass().getSimpleName());
    }
    return next.startCall(call, headers);
  }

  private static PeerIdentity identity(SSLSession session) throws CertificateException {
    if (session == null) {
      throw new CertificateException("the connection is not TLS");
    }
    Object known = session.getValue(SESSION_IDENTITY);
    if (known instanceof PeerIdentity id) {
      return id;
    }
    Certificate[] chain;
    try {
      chain = session.getPeerCertificates();
    } catch (SSLPeerUnverifiedException e) {
      throw new CertificateException("the caller presented no certificate", e);
    }
    if (chain.length == 0 || !(chain[0] instanceof X509Certificate cert)) {
      throw new CertificateException("the caller presented no X.509 certificate");
    }
    PeerIdentity id = PeerIdentity.of(cert);
    session.putValue(SESSION_IDENTITY, id);
    return id;
  }

  /** The requestor a Raft request between members names; null for an unknown message. */
  static String requestor(Object message) {
    RaftRpcRequestProto request;
    if (message instanceof AppendEntriesRequestProto m) {
      request = m.getServerRequest();
    } else if (message instanceof RequestVoteRequestProto m) {
      request = m.getServerRequest();
    } else if (message instanceof InstallSnapshotRequestProto m) {
      request = m.getServerRequest();
    } else if (message instanceof ReadIndexRequestProto m) {
      request = m.getServerRequest();
    } else if (message instanceof StartLeaderElectionRequestProto m) {
      request = m.getServerRequest();
    } else {
      return null;
    }
    return request.getRequestorId().toStringUtf8();
  }

  private <Q, R> ServerCall.Listener<Q> checkEach(
      ServerCall<Q, R> call,
      Metadata headers,
      ServerCallHandler<Q, R> next,
      AccessPolicy.Service service,
      Function<Object, String> check) {
    GuardedCall<Q, R> guarded = new GuardedCall<>(call);
    ServerCall.Listener<Q> delegate = next.startCall(guarded, headers);
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(delegate) {
      private boolean refused;

      @Override
      public void onMessage(Q message) {
        if (refused) {
          return;
        }
        String why = check.apply(message);
        if (why != null) {
          refused = true;
          refuse(guarded, Status.PERMISSION_DENIED, why, service);
          return;
        }
        super.onMessage(message);
      }

      @Override
      public void onHalfClose() {
        if (!refused) {
          super.onHalfClose();
        }
      }
    };
  }

  private void refuse(
      ServerCall<?, ?> call, Status status, String why, AccessPolicy.Service service) {
    long now = System.currentTimeMillis();
    Long last = lastLogged.get(why);
    if (last == null || now - last >= LOG_EVERY_MS) {
      if (lastLogged.size() >= LOGGED_REASONS_MAX) {
        lastLogged.clear();
      }
      lastLogged.put(why, now);
      SocketAddress from = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
      LOG.warn(
          "Node {} refused {} from {}: {} (check the caller's certificate and the cluster's CA)",
          nodeId,
          call.getMethodDescriptor().getFullMethodName(),
          from,
          why);
    }
    Metadata trailers = new Metadata();
    if (service != AccessPolicy.Service.SERVER) {
      trailers.put(GrpcUtil.EXCEPTION_TYPE_KEY, SecurityException.class.getName());
    }
    call.close(status.withDescription(why), trailers);
  }

  /**
   * A call that Ratis' service (sending replies on its own threads) and this interceptor (closing a
   * refused call on gRPC's) may both use: its sends and its close are serialized, and nothing is
   * sent once it is closed.
   */
  private static final class GuardedCall<Q, R>
      extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {
    private boolean closed;

    GuardedCall(ServerCall<Q, R> call) {
      super(call);
    }

    @Override
    public synchronized void sendHeaders(Metadata headers) {
      if (!closed) {
        super.sendHeaders(headers);
      }
    }

    @Override
    public synchronized void sendMessage(R message) {
      if (!closed) {
        super.sendMessage(message);
      }
    }

    @Override
    public synchronized void close(Status status, Metadata trailers) {
      if (!closed) {
        closed = true;
        super.close(status, trailers);
      }
    }
  }
}
