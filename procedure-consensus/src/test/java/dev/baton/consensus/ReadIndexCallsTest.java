package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.proto.RaftProtos.ReadIndexReplyProto;
import org.apache.ratis.proto.RaftProtos.ReadIndexRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteReplyProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.thirdparty.io.grpc.ManagedChannel;
import org.apache.ratis.thirdparty.io.grpc.Server;
import org.apache.ratis.thirdparty.io.grpc.ServerServiceDefinition;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyChannelBuilder;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder;
import org.apache.ratis.thirdparty.io.grpc.stub.ServerCalls;
import org.apache.ratis.thirdparty.io.netty.util.concurrent.FastThreadLocalThread;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real gRPC server on loopback with Ratis' server methods: which thread runs each call with
 * {@link ReadIndexCalls} as the server's call executor.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReadIndexCallsTest {

  @Test
  void readIndexRunsOnTheTransportThreadAndOtherCallsOnTheExecutor() throws Exception {
    Map<String, Thread> handledOn = new ConcurrentHashMap<>();
    ServerServiceDefinition service =
        ServerServiceDefinition.builder(RaftServerProtocolServiceGrpc.SERVICE_NAME)
            .addMethod(
                RaftServerProtocolServiceGrpc.getReadIndexMethod(),
                ServerCalls.<ReadIndexRequestProto, ReadIndexReplyProto>asyncUnaryCall(
                    (request, observer) -> {
                      handledOn.put("readIndex", Thread.currentThread());
                      observer.onNext(ReadIndexReplyProto.getDefaultInstance());
                      observer.onCompleted();
                    }))
            .addMethod(
                RaftServerProtocolServiceGrpc.getRequestVoteMethod(),
                ServerCalls.<RequestVoteRequestProto, RequestVoteReplyProto>asyncUnaryCall(
                    (request, observer) -> {
                      handledOn.put("requestVote", Thread.currentThread());
                      observer.onNext(RequestVoteReplyProto.getDefaultInstance());
                      observer.onCompleted();
                    }))
            .build();
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .callExecutor(new ReadIndexCalls())
            .addService(service)
            .build()
            .start();
    ManagedChannel channel =
        NettyChannelBuilder.forAddress(
                InetAddress.getLoopbackAddress().getHostAddress(), server.getPort())
            .usePlaintext()
            .build();
    try {
      var stub = RaftServerProtocolServiceGrpc.newBlockingStub(channel);
      stub.readIndex(ReadIndexRequestProto.getDefaultInstance());
      stub.requestVote(RequestVoteRequestProto.getDefaultInstance());
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
    }
    // Netty's event loops run on its FastThreadLocalThreads; gRPC's default executor does not
    assertTrue(
        handledOn.get("readIndex") instanceof FastThreadLocalThread,
        "readIndex ran on " + handledOn.get("readIndex"));
    assertFalse(
        handledOn.get("requestVote") instanceof FastThreadLocalThread,
        "requestVote ran on " + handledOn.get("requestVote"));
  }
}
