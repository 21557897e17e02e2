package dev.baton.consensus;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.baton.consensus.proto.Query;
import dev.baton.consensus.proto.QueryReply;
import dev.baton.consensus.proto.ReadIndexReply;
import dev.baton.consensus.proto.ReadIndexRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.thirdparty.io.grpc.CallOptions;
import org.apache.ratis.thirdparty.io.grpc.ClientCall;
import org.apache.ratis.thirdparty.io.grpc.ManagedChannel;
import org.apache.ratis.thirdparty.io.grpc.stub.ClientCalls;
import org.apache.ratis.thirdparty.io.grpc.stub.StreamObserver;

/**
 * A follower's linearizable reads: the read index from the leader by Baton's own call ({@link
 * ReadIndexService}), a wait until this node applied it, then the query of this node's own state.
 * Every write acknowledged before the read started is at or below the leader's read index, so the
 * answer contains it.
 *
 * <p>The leader's answer arrives on the channel's transport thread. A read of one procedure whose
 * index this node has applied is answered there (a lookup in the table, no hand-off to wake a
 * thread for); any other read (a page, the audit trail, metadata, or one that waits for this node's
 * apply) goes on on a thread of {@link #reads}, as it would hold up the transport thread that also
 * carries Raft's traffic.
 *
 * <p>A read fails (and the caller reads another way) when this node knows no leader, leads itself,
 * or the leader cannot answer (it lost its leadership, is not ready, is unreachable). One channel
 * per leader address is kept until {@link #close}.
 */
final class FollowerReads implements AutoCloseable {
  private final RaftServer server;
  private final RaftGroupId group;
  private final RaftSecurity security;
  private final AppliedWaits applied;
  private final Function<Message, CompletableFuture<Message>> localQuery;
  private final ExecutorService reads;
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final LongAdder answered = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private volatile boolean closed;

  /**
   * @param applied this node's applied index, waited on
   * @param localQuery answers a serialized query from this node's state, with no read index
   */
  FollowerReads(
      String nodeId,
      RaftServer server,
      RaftGroupId group,
      RaftSecurity security,
      AppliedWaits applied,
      Function<Message, CompletableFuture<Message>> localQuery) {
    this.server = server;
    this.group = group;
    this.security = security;
    this.applied = applied;
    this.localQuery = localQuery;
    this.reads =
        Executors.newCachedThreadPool(LeadershipManager.daemon("baton-" + nodeId + "-reads"));
  }

  /** A linearizable read of {@code query}; the read index call gives up after {@code timeout}. */
  CompletableFuture<QueryReply> read(Query query, Duration timeout) {
    CompletableFuture<Long> index;
    try {
      index = readIndex(timeout);
    } catch (IOException | RuntimeException e) {
      failed.increment();
      return CompletableFuture.failedFuture(e);
    }
    Message request = Message.valueOf(UnsafeByteOperations.unsafeWrap(query.toByteArray()));
    boolean small = query.getKindCase() == Query.KindCase.GET;
    return index
        .thenCompose(
            i -> {
              CompletableFuture<Void> wait = applied.await(i);
              return small && wait.isDone()
                  ? answer(request)
                  : wait.thenComposeAsync(ignored -> answer(request), reads);
            })
        .whenComplete((reply, error) -> (error == null ? answered : failed).increment());
  }

  /** Reads answered this way since the node started. */
  long answeredCount() {
    return answered.sum();
  }

  /** Reads that failed this way (and were read another way) since the node started. */
  long failedCount() {
    return failed.sum();
  }

  private CompletableFuture<QueryReply> answer(Message request) {
    return localQuery
        .apply(request)
        .thenApply(
            reply -> {
              try {
                return QueryReply.parseFrom(reply.getContent().asReadOnlyByteBuffer());
              } catch (InvalidProtocolBufferException e) {
                throw new CompletionException(new IOException("unreadable query reply", e));
              }
            });
  }

  /** Asks the leader this node knows for its read index. */
  private CompletableFuture<Long> readIndex(Duration timeout) throws IOException {
    RaftServer.Division division = server.getDivision(group);
    RaftPeerId leader = division.getInfo().getLeaderId();
    if (leader == null || leader.equals(division.getId())) {
      throw new IOException("no other member is known to lead");
    }
    org.apache.ratis.protocol.RaftPeer peer = division.getRaftConf().getPeer(leader);
    if (peer == null || peer.getAddress() == null) {
      throw new IOException("leader " + leader + " has no known address");
    }
    ReadIndexRequest request =
        ReadIndexRequest.newBuilder()
            .setRequestor(division.getId().toString())
            .setCommitIndex(division.getRaftLog().getLastCommittedIndex())
            .build();
    CompletableFuture<Long> index = new CompletableFuture<>();
    // no gRPC deadline: its timer would be set, and cancelled, on another event loop of the channel
    // (two thread wake-ups per call); the same timeout on the answer cancels the call instead
    ClientCall<ReadIndexRequest, ReadIndexReply> call =
        channel(peer.getAddress()).newCall(ReadIndexService.READ_INDEX, CallOptions.DEFAULT);
    index
        .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
        .whenComplete(
            (i, error) -> {
              if (error != null) {
                call.cancel("no read index within " + timeout, null);
              }
            });
    ClientCalls.asyncUnaryCall(
        call,
        request,
        new StreamObserver<ReadIndexReply>() {
          @Override
          public void onNext(ReadIndexReply reply) {
            index.complete(reply.getIndex());
          }

          @Override
          public void onError(Throwable t) {
            index.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
            index.completeExceptionally(new IOException("the leader sent no read index"));
          }
        });
    return index;
  }

  private ManagedChannel channel(String address) throws IOException {
    if (closed) {
      throw new IOException("the node is stopping");
    }
    ManagedChannel channel = channels.computeIfAbsent(address, security::channelTo);
    if (closed) {
      channel.shutdownNow();
      throw new IOException("the node is stopping");
    }
    return channel;
  }

  @Override
  public void close() {
    closed = true;
    reads.shutdown();
    channels.values().forEach(ManagedChannel::shutdownNow);
    channels.clear();
  }
}
