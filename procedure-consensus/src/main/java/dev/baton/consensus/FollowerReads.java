package dev.baton.consensus;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.baton.consensus.proto.Query;
import dev.baton.consensus.proto.QueryReply;
import dev.baton.consensus.proto.ReadIndexRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.thirdparty.io.grpc.ManagedChannel;

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
 * or the leader cannot answer (it lost its leadership, is not ready, is unreachable). The read
 * index requests go on one stream per leader address ({@link ReadIndexStream}), kept with its
 * channel until {@link #close}; each request's own timeout fails it alone.
 */
final class FollowerReads implements AutoCloseable {
  private final RaftServer server;
  private final RaftGroupId group;
  private final RaftSecurity security;
  private final AppliedWaits applied;
  private final Function<Message, CompletableFuture<Message>> localQuery;
  private final Function<Query, CompletableFuture<QueryReply>> ratisRead;
  private final ExecutorService reads;
  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final Map<String, ReadIndexStream> streams = new ConcurrentHashMap<>();
  private final LongAdder answered = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder behind = new LongAdder();
  private volatile boolean closed;

  /**
   * @param applied this node's applied index, waited on
   * @param localQuery answers a serialized query from this node's state, with no read index
   * @param ratisRead a linearizable read through this node's Ratis server (its own read index round
   *     trip to the leader), for a node behind the leader's read index
   */
  FollowerReads(
      String nodeId,
      RaftServer server,
      RaftGroupId group,
      RaftSecurity security,
      AppliedWaits applied,
      Function<Message, CompletableFuture<Message>> localQuery,
      Function<Query, CompletableFuture<QueryReply>> ratisRead) {
    this.server = server;
    this.group = group;
    this.security = security;
    this.applied = applied;
    this.localQuery = localQuery;
    this.ratisRead = ratisRead;
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
              if (small && wait.isDone()) {
                return answer(request);
              }
              CompletableFuture<QueryReply> mine =
                  wait.thenComposeAsync(ignored -> answer(request), reads);
              if (wait.isDone()) {
                return mine;
              }
              behind.increment();
              return firstOf(mine, ratisRead.apply(query));
            })
        .whenComplete((reply, error) -> (error == null ? answered : failed).increment());
  }

  /**
   * The first of two answers to succeed; fails only when both fail (with the second failure). A
   * node behind the read index waits for entries it may have but not know committed: the leader
   * sends it the commit index with the read index ({@link NodeCalls#leaderReadIndex}), but that
   * heartbeat can overtake the append it depends on, and the next comes only after half an election
   * timeout. Ratis' own read gives the leader a second occasion, one round trip later.
   */
  private static CompletableFuture<QueryReply> firstOf(
      CompletableFuture<QueryReply> one, CompletableFuture<QueryReply> other) {
    CompletableFuture<QueryReply> first = new CompletableFuture<>();
    AtomicInteger failures = new AtomicInteger();
    BiConsumer<QueryReply, Throwable> take =
        (reply, error) -> {
          if (error == null) {
            first.complete(reply);
          } else if (failures.incrementAndGet() == 2) {
            first.completeExceptionally(error);
          }
        };
    one.whenComplete(take);
    other.whenComplete(take);
    return first;
  }

  /**
   * Reads whose node had not applied the leader's read index when it came, and so also read through
   * Ratis, since the node started.
   */
  long behindCount() {
    return behind.sum();
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
    ReadIndexRequest.Builder request =
        ReadIndexRequest.newBuilder()
            .setRequestor(division.getId().toString())
            .setCommitIndex(division.getRaftLog().getLastCommittedIndex());
    return stream(peer.getAddress()).ask(request, timeout);
  }

  /**
   * The open stream to {@code address}, a new one if there was none or it ended. One channel and
   * one stream per address are kept until {@link #close}.
   */
  private ReadIndexStream stream(String address) throws IOException {
    if (closed) {
      throw new IOException("the node is stopping");
    }
    ReadIndexStream known = streams.get(address);
    if (known != null && !known.broken()) {
      return known;
    }
    ReadIndexStream stream =
        streams.compute(
            address,
            (a, open) ->
                open != null && !open.broken()
                    ? open
                    : new ReadIndexStream(channels.computeIfAbsent(a, security::channelTo)));
    if (closed) {
      close();
      throw new IOException("the node is stopping");
    }
    return stream;
  }

  @Override
  public void close() {
    closed = true;
    reads.shutdown();
    streams.values().forEach(ReadIndexStream::close);
    streams.clear();
    channels.values().forEach(ManagedChannel::shutdownNow);
    channels.clear();
  }
}
