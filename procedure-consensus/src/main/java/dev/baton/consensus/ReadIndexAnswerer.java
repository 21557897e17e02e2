package dev.baton.consensus;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
import org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder;
import org.apache.ratis.thirdparty.io.grpc.stub.ServerCalls;
import org.apache.ratis.thirdparty.io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers another member's read index request (the first half of every linearizable read a follower
 * serves) on the event loop that received it. gRPC hands every call from the event loop to an
 * executor (and the request for the call's message back to the event loop, and the message to the
 * executor again), and Ratis' own handler hands the request on to its server executor and waits
 * there for the answer: on a loaded 2-core machine each hand-off waits for a CPU. Here the server
 * runs calls on their event loop until their method is known; a read index call stays there and is
 * answered with the same division call Ratis makes (at once while the leader's lease lasts; after a
 * heartbeat round to a majority otherwise, see {@link RaftSettings#LEADER_LEASE_READS}), which
 * never blocks; every other call moves to a pool as before. A request for a group this server does
 * not hold, or while the server is not started, goes to Ratis' handler path, which answers it as it
 * always does.
 */
final class ReadIndexAnswerer implements ServerInterceptor {
  private static final Logger LOG = LoggerFactory.getLogger(ReadIndexAnswerer.class);

  private static final String READ_INDEX =
      RaftServerProtocolServiceGrpc.getReadIndexMethod().getFullMethodName();

  /** Where every call but a read index runs, as on gRPC's own default executor: a cached pool. */
  private static final ExecutorService OTHER_CALLS =
      Executors.newCachedThreadPool(LeadershipManager.daemon("baton-raft-calls"));

  private final Supplier<RaftServer> server;
  private volatile RaftServer.Division division;
  private final ServerCallHandler<ReadIndexRequestProto, ReadIndexReplyProto> handler =
      ServerCalls.asyncUnaryCall(this::answer);

  /**
   * @param server the member's Ratis server once built (null before)
   */
  ReadIndexAnswerer(Supplier<RaftServer> server) {
    this.server = server;
  }

  /** {@code builder} with read index calls answered by this (see the class comment). */
  NettyServerBuilder serve(NettyServerBuilder builder) {
    return builder.directExecutor().callExecutor(this::executorOf).intercept(this);
  }

  /** The event loop's thread (null: no switch) for a read index call, else the pool. */
  private Executor executorOf(ServerCall<?, ?> call, Metadata headers) {
    return READ_INDEX.equals(call.getMethodDescriptor().getFullMethodName()) ? null : OTHER_CALLS;
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
    RaftGroupId group = RaftGroupId.valueOf(request.getServerRequest().getRaftGroupId().getId());
    RaftServer.Division d = division;
    if (d != null && d.getMemberId().getGroupId().equals(group)) {
      return ((RaftServerAsynchronousProtocol) d).readIndexAsync(request);
    }
    RaftServer s = server.get();
    if (s == null) {
      throw new IOException("the Raft server of this member is not running");
    }
    try {
      RaftServer.Division found = s.getDivision(group);
      if (found instanceof RaftServerAsynchronousProtocol direct) {
        division = found;
        return direct.readIndexAsync(request);
      }
    } catch (IOException notHere) {
      // the server's path fails the request with the reason
    }
    return s.readIndexAsync(request);
  }

  private static String requestor(ReadIndexRequestProto request) {
    return request.getServerRequest().getRequestorId().toStringUtf8();
  }
}
