package dev.baton.consensus;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import dev.baton.consensus.proto.ReadIndexReply;
import dev.baton.consensus.proto.ReadIndexRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.MethodDescriptor;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallExecutorSupplier;
import org.apache.ratis.thirdparty.io.grpc.ServerServiceDefinition;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.apache.ratis.thirdparty.io.grpc.stub.ServerCalls;
import org.apache.ratis.thirdparty.io.grpc.stub.StreamObserver;

/**
 * Baton's read index call between members, served on each member's Raft port beside Ratis'
 * services: a follower asks the leader for a read index ({@link FollowerReads}), the leader answers
 * with the index its own linearizable read saw applied. Only members of the group may call it
 * ({@link AccessPolicy}).
 *
 * <p>Ratis has a follower's server ask the leader itself, but that round trip passes through
 * several thread hand-offs in each process (on the leader, gRPC's executor, then Ratis' server
 * pool, joined, then the transport thread again). This call is looked up, answered and written on
 * the transport thread that read it ({@link #executors}): the leader's read takes no thread of
 * Ratis' ({@link LocalSubmitter#read}), waits for nothing with a lease (without one it registers
 * with the next heartbeat round and is answered from the thread that completes it), and a member
 * that does not lead refuses at once.
 */
final class ReadIndexService {
  static final String SERVICE_NAME = "baton.consensus.ReadIndexService";

  static final MethodDescriptor<ReadIndexRequest, ReadIndexReply> READ_INDEX =
      MethodDescriptor.<ReadIndexRequest, ReadIndexReply>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE_NAME, "ReadIndex"))
          .setRequestMarshaller(new ProtoMarshaller<>(ReadIndexRequest.parser()))
          .setResponseMarshaller(new ProtoMarshaller<>(ReadIndexReply.parser()))
          .setIdempotent(true)
          .build();

  private final String nodeId;

  /** This node's linearizable read of its applied index; null until the node can read. */
  private volatile Function<ReadIndexRequest, CompletableFuture<Long>> readIndex;

  ReadIndexService(String nodeId) {
    this.nodeId = nodeId;
  }

  /**
   * Answers every later call with {@code readIndex}: a linearizable read of the applied index that
   * fails unless this node leads, given the call's request (who asks, what it knows committed).
   */
  void answerWith(Function<ReadIndexRequest, CompletableFuture<Long>> readIndex) {
    this.readIndex = readIndex;
  }

  /** The service, for the member's gRPC server. */
  ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder(SERVICE_NAME)
        .addMethod(READ_INDEX, ServerCalls.asyncUnaryCall(this::answer))
        .build();
  }

  /**
   * Where the member's gRPC server runs each call, for a server whose own executor is the transport
   * thread (gRPC's direct executor): this service's calls there, every other (Ratis' own) on {@code
   * others}. A server with an executor of its own would first hand every call to it to look up the
   * method, even one whose supplier names the transport thread: a thread wake-up on the way in and
   * another to write the answer back.
   */
  static ServerCallExecutorSupplier executors(Executor others) {
    return new ServerCallExecutorSupplier() {
      @Override
      public <Q, R> Executor getExecutor(ServerCall<Q, R> call, Metadata headers) {
        // null: the server's own executor, the transport thread
        return SERVICE_NAME.equals(call.getMethodDescriptor().getServiceName()) ? null : others;
      }
    };
  }

  private void answer(ReadIndexRequest request, StreamObserver<ReadIndexReply> out) {
    Function<ReadIndexRequest, CompletableFuture<Long>> source = readIndex;
    if (source == null) {
      out.onError(
          Status.UNAVAILABLE.withDescription("node " + nodeId + " is starting").asException());
      return;
    }
    CompletableFuture<Long> index;
    try {
      index = source.apply(request);
    } catch (RuntimeException e) {
      index = CompletableFuture.failedFuture(e);
    }
    index.whenComplete(
        (i, error) -> {
          if (error == null) {
            out.onNext(ReadIndexReply.newBuilder().setIndex(i).build());
            out.onCompleted();
          } else {
            out.onError(
                Status.UNAVAILABLE
                    .withDescription("node " + nodeId + " has no read index: " + reason(error))
                    .asException());
          }
        });
  }

  private static String reason(Throwable error) {
    Throwable cause = RaftReplies.unwrap(error);
    return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
  }

  /** A message of our own protobuf (not Ratis' shaded one) on gRPC's wire. */
  private static final class ProtoMarshaller<T extends MessageLite>
      implements MethodDescriptor.Marshaller<T> {
    private final Parser<T> parser;

    ProtoMarshaller(Parser<T> parser) {
      this.parser = parser;
    }

    @Override
    public InputStream stream(T value) {
      return new ByteArrayInputStream(value.toByteArray());
    }

    @Override
    public T parse(InputStream stream) {
      try {
        return parser.parseFrom(stream);
      } catch (InvalidProtocolBufferException e) {
        throw Status.INTERNAL
            .withDescription("unreadable read index message: " + e.getMessage())
            .asRuntimeException();
      } catch (IOException e) {
        throw Status.INTERNAL.withCause(e).asRuntimeException();
      }
    }
  }
}
