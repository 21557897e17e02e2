package dev.baton.consensus;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.ratis.grpc.GrpcUtil;
import org.apache.ratis.proto.RaftProtos.ReadIndexReplyProto;
import org.apache.ratis.proto.RaftProtos.ReadIndexRequestProto;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.RaftServerAsynchronousProtocol;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;
import org.apache.ratis.thirdparty.io.grpc.stub.ServerCalls;
import org.apache.ratis.thirdparty.io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers another member's read index request (the first half of every linearizable read a follower
 * serves) on the thread gRPC delivers it on. Ratis' own handler hands each such request to its
 * server executor and waits there for the answer, two thread hand-offs per read; this one asks the
 * same division directly, so the leader's answer (at once while its lease lasts; after a heartbeat
 * round to a majority otherwise, see {@link RaftSettings#LEADER_LEASE_READS}) is the one Ratis
 * gives, only without them. A request for a group this server does not hold, or while the server is
 * not started, goes to Ratis' handler path, which answers it as it always does.
 */
final class ReadIndexAnswerer implements ServerInterceptor {
  private static final Logger LOG = LoggerFactory.getLogger(ReadIndexAnswerer.class);

  private static final String READ_INDEX =
      RaftServerProtocolServiceGrpc.getReadIndexMethod().getFullMethodName();

  private final Supplier<RaftServer> server;
  private final ServerCallHandler<ReadIndexRequestProto, ReadIndexReplyProto> handler =
      ServerCalls.asyncUnaryCall(this::answer);

  /**
   * @param server the member's Ratis server once built (null before)
   */
  ReadIndexAnswerer(Supplier<RaftServer> server) {
    this.server = server;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    if (!READ_INDEX.equals(call.getMethodDescriptor().getFullMethodName())) {
      return next.startCall(call, headers);
    }
    @SuppressWarnings("unchecked") // the method's descriptor fixes both types
    ServerCall<ReadIndexRequestProto, ReadIndexReplyProto> readIndex =
        (ServerCall<ReadIndexRequestProto, ReadIndexReplyProto>) call;
    @SuppressWarnings("unchecked")
    ServerCall.Listener<Q> listener =
        (ServerCall.Listener<Q>) handler.startCall(readIndex, headers);
    return listener;
  }

  private void answer(ReadIndexRequestProto request, StreamObserver<ReadIndexReplyProto> out) {
    GrpcUtil.asyncCall(
        out,
        () -> readIndex(request),
        reply -> reply,
        e -> LOG.debug("read index request of {} failed", requestor(request), e));
  }

  /**
   * The division's answer when the division itself can give it; else the server's, whose handler
   * path finds the division (or fails the request the way Ratis does).
   */
  private CompletableFuture<ReadIndexReplyProto> readIndex(ReadIndexRequestProto request)
      throws IOException {
    RaftServer s = server.get();
    if (s == null) {
      throw new IOException("the Raft server of this member is not running");
    }
    RaftServer.Division division;
    try {
      division =
          s.getDivision(RaftGroupId.valueOf(request.getServerRequest().getRaftGroupId().getId()));
    } catch (IOException notHere) {
      return s.readIndexAsync(request);
    }
    return division instanceof RaftServerAsynchronousProtocol direct
        ? direct.readIndexAsync(request)
        : s.readIndexAsync(request);
  }

  private static String requestor(ReadIndexRequestProto request) {
    return request.getServerRequest().getRequestorId().toStringUtf8();
  }
}
