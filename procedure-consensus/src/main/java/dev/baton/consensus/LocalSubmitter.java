package dev.baton.consensus;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.Query;
import dev.baton.consensus.proto.QueryReply;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.ratis.client.impl.ClientProtoUtils;
import org.apache.ratis.proto.RaftProtos.ReadIndexRequestProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.RaftServerAsynchronousProtocol;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * Appends commands through this node's own Raft server, without a gRPC hop: a Raft client, even in
 * the same process, pays a serialization and a loopback round trip per request. Only useful on the
 * leader; elsewhere the reply is a not-leader error. Also reads through it, on any member: a
 * linearizable read that this node's server answers after a read index round trip to the leader
 * (none on the leader itself).
 *
 * <p>Replies to submissions complete on this submitter's own thread, in the order Ratis gives them,
 * never on the Raft apply thread that produces them: Ratis completes a leader's pending request
 * right after {@code applyTransaction}, on the one thread that applies every entry, so whatever
 * depends on a reply (a group commit's next entry, the executor's continuations, a caller's
 * callbacks on a submission's future) would otherwise hold up the application of every entry behind
 * it.
 *
 * <p>Replies to reads move to a thread of their own only when Ratis completes them on the apply
 * thread (a follower's read that waited for the read index to be applied, a new leader's first
 * reads). Otherwise they complete where Ratis answers: on the caller's thread (a leader answering
 * from its lease) or on the gRPC thread that received the leader's read index when this node had
 * already applied it. A thread hand-off there would only add a wake-up to every read.
 */
final class LocalSubmitter implements AutoCloseable {
  private final RaftServer server;
  private final RaftGroupId group;
  private final ClientId clientId;
  private final AtomicLong callIds = new AtomicLong();
  private final ThreadPoolExecutor replies;
  private final ThreadPoolExecutor readReplies;
  private final ThreadPoolExecutor callerReplies;
  private final Executor readReplyHandOff;

  /** Where reads go: the group's division once known ({@link #reads}), else the server. */
  private volatile RaftClientAsynchronousProtocol readTarget;

  /**
   * @param clientId the id this submitter's requests carry: the state machine accepts the
   *     executor's own commands only from it, so it must never be used by anything else
   * @param onApplyThread whether the calling thread is the one the state machine applies entries on
   */
  LocalSubmitter(
      RaftServer server,
      ClientId clientId,
      RaftGroupId group,
      String nodeId,
      BooleanSupplier onApplyThread) {
    this.server = server;
    this.clientId = clientId;
    this.group = group;
    this.replies = replyThread("baton-" + nodeId + "-replies");
    // reads complete on their own thread: a large answer must not hold up the executor's writes
    this.readReplies = replyThread("baton-" + nodeId + "-read-replies");
    this.callerReplies = replyThread("baton-" + nodeId + "-caller-replies");
    this.readReplyHandOff =
        task -> {
          if (onApplyThread.getAsBoolean()) {
            readReplies.execute(task);
          } else {
            task.run();
          }
        };
  }

  /** One thread delivering replies in order; after close, the replying thread delivers. */
  private static ThreadPoolExecutor replyThread(String name) {
    return new ThreadPoolExecutor(
        1,
        1,
        0,
        TimeUnit.MILLISECONDS,
        new LinkedBlockingQueue<>(),
        LeadershipManager.daemon(name),
        (task, closed) -> task.run());
  }

  private RaftClientRequest request(Message message, RaftClientRequest.Type type) {
    return RaftClientRequest.newBuilder()
        .setClientId(clientId)
        .setServerId(server.getId())
        .setGroupId(group)
        .setCallId(callIds.incrementAndGet())
        .setMessage(message)
        .setType(type)
        .build();
  }

  CompletableFuture<CommandReply> submit(Command command) {
    RaftClientRequest request =
        request(RaftReplies.message(command), RaftClientRequest.writeRequestType());
    try {
      return server
          .submitClientRequestAsync(request)
          .thenApplyAsync(RaftReplies::commandReply, replies);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * A linearizable read answered by this node's own server: Ratis asks the leader for a read index
   * (unless this node leads), waits until this node applied it, then queries the state machine.
   * Fails while no leader is known or ready; the caller decides where to ask next.
   */
  CompletableFuture<QueryReply> read(Query query) {
    RaftClientRequest request =
        request(
            Message.valueOf(UnsafeByteOperations.unsafeWrap(query.toByteArray())),
            RaftClientRequest.readRequestType());
    try {
      return reads()
          .submitClientRequestAsync(request)
          .thenApplyAsync(LocalSubmitter::queryReply, readReplyHandOff);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Has this leader send {@code follower} what it has committed now, not at its next heartbeat: for
   * a follower that asked for a read index above the commit index it knew, and otherwise waits for
   * that heartbeat before it can apply up to the index. Ratis does this after it answers a
   * follower's read index itself, so this asks this node's server for a read index on the
   * follower's behalf and ignores the answer. Does nothing unless this node leads and {@code
   * follower} is one of its followers.
   */
  void sendCommitIndexTo(RaftPeerId follower) {
    RaftClientRequest read = request(Message.EMPTY, RaftClientRequest.readRequestType());
    ReadIndexRequestProto request =
        ReadIndexRequestProto.newBuilder()
            .setServerRequest(
                ClientProtoUtils.toRaftRpcRequestProtoBuilder(
                    RaftGroupMemberId.valueOf(follower, group), server.getId()))
            .setClientRequest(ClientProtoUtils.toRaftClientRequestProto(read))
            .build();
    try {
      RaftServer.Division division = server.getDivision(group);
      if (division instanceof RaftServerAsynchronousProtocol leader) {
        leader.readIndexAsync(request);
      }
    } catch (IOException | RuntimeException e) {
      // a node that is stopping has nothing to send; without the send, the follower learns the
      // commit index at the leader's next heartbeat, as it would have anyway
    }
  }

  /**
   * Where a read is submitted. The server hands every client request to Ratis' client pool and
   * waits for that thread to take it ({@code RaftServerImpl.executeSubmitClientRequestAsync}): two
   * thread wake-ups per read. The group's division (Ratis' server implementation takes client
   * requests as a {@link RaftClientAsynchronousProtocol}) takes it on the caller's thread: a read
   * there only finds the read index (at once on a leader with a lease) and registers its query,
   * work that does not need a thread of Ratis'.
   */
  private RaftClientAsynchronousProtocol reads() {
    RaftClientAsynchronousProtocol target = readTarget;
    if (target != null) {
      return target;
    }
    try {
      RaftServer.Division division = server.getDivision(group);
      target = division instanceof RaftClientAsynchronousProtocol direct ? direct : server;
    } catch (IOException e) {
      return server;
    }
    readTarget = target;
    return target;
  }

  private static QueryReply queryReply(RaftClientReply reply) {
    try {
      return QueryReply.parseFrom(RaftReplies.content(reply));
    } catch (InvalidProtocolBufferException e) {
      throw new CompletionException(new IOException("unreadable query reply", e));
    }
  }

  /**
   * Where the answers to a caller's submissions complete, one at a time: not on {@link #replies},
   * which also carries the executor's own continuations (a submission on the leader joins the
   * executor's next store entry), so a caller's callback that blocks holds up other callers'
   * answers, never the executor.
   */
  Executor callerReplies() {
    return callerReplies;
  }

  /** Stops the reply threads once the replies queued for them are delivered. */
  @Override
  public void close() {
    replies.shutdown();
    readReplies.shutdown();
    callerReplies.shutdown();
  }
}
