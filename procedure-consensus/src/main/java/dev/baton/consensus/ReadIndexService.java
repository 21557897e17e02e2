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
import org.apache.ratis.thirdparty.io.grpc.stub.ServerCallStreamObserver;
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
 *
 * <p>The call is a stream: a member keeps one open to the leader ({@link ReadIndexStream}) and
 * numbers its requests. A call per read would cost, each time, a new HTTP/2 stream with its headers
 * and trailers on both sides and a new server call through the interceptors; on the stream a read
 * is one small message each way.
 */
final class ReadIndexService {
  static final String SERVICE_NAME = "baton.consensus.ReadIndexService";

  static final MethodDescriptor<ReadIndexRequest, ReadIndexReply> READ_INDEX =
      MethodDescriptor.<ReadIndexRequest, ReadIndexReply>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE_NAME, "ReadIndex"))
          .setRequestMarshaller(new ProtoMarshaller<>(ReadIndexRequest.parser()))
          .setResponseMarshaller(new ProtoMarshaller<>(ReadIndexReply.parser()))
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
        .addMethod(READ_INDEX, ServerCalls.asyncBidiStreamingCall(this::stream))
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

  /**
   * One member's stream of requests: each answered on its own, as soon as its read index is known
   * (so possibly out of order), with an error reply rather than the stream's end when this node
   * gives none. The stream ends once the asker ended its side and every answer is sent.
   */
  private StreamObserver<ReadIndexRequest> stream(StreamObserver<ReadIndexReply> out) {
    ServerCallStreamObserver<ReadIndexReply> replies =
        (ServerCallStreamObserver<ReadIndexReply>) out;
    // without a handler, a reply after the asker cancelled would throw
    replies.setOnCancelHandler(() -> {});
    return new StreamObserver<>() {
      private int unanswered;
      private boolean askerDone;

      @Override
      public void onNext(ReadIndexRequest request) {
        synchronized (replies) {
          unanswered++;
        }
        readIndexOf(request)
            .whenComplete(
                (i, error) ->
                    answer(
                        error == null
                            ? ReadIndexReply.newBuilder().setId(request.getId()).setIndex(i)
                            : ReadIndexReply.newBuilder()
                                .setId(request.getId())
                                .setError(
                                    "node " + nodeId + " has no read index: " + reason(error))));
      }

      @Override
      public void onError(Throwable t) {
        // the asker went away; its answers are dropped
      }

      @Override
      public void onCompleted() {
        synchronized (replies) {
          askerDone = true;
          endIfDone();
        }
      }

      private void answer(ReadIndexReply.Builder reply) {
        synchronized (replies) {
          unanswered--;
          if (!replies.isCancelled()) {
            replies.onNext(reply.build());
          }
          endIfDone();
        }
      }

      private void endIfDone() {
        if (askerDone && unanswered == 0 && !replies.isCancelled()) {
          replies.onCompleted();
        }
      }
    };
  }

  /** This node's read index for {@code request}; fails while the node is starting. */
  private CompletableFuture<Long> readIndexOf(ReadIndexRequest request) {
    Function<ReadIndexRequest, CompletableFuture<Long>> source = readIndex;
    if (source == null) {
      return CompletableFuture.failedFuture(new IOException("it is starting"));
    }
    try {
      return source.apply(request);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
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
