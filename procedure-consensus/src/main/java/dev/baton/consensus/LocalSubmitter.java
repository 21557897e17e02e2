package dev.baton.consensus;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.Query;
import dev.baton.consensus.proto.QueryReply;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * Appends commands through this node's own Raft server, without a gRPC hop: a Raft client, even in
 * the same process, pays a serialization and a loopback round trip per request. Only useful on the
 * leader; elsewhere the reply is a not-leader error. Also reads through it, on any member: a
 * linearizable read that this node's server answers after a read index round trip to the leader
 * (none on the leader itself).
 *
 * <p>Replies to writes complete on this submitter's own thread, in the order Ratis gives them,
 * never on the Raft apply thread that produces them: Ratis completes a leader's pending request
 * right after {@code applyTransaction}, on the one thread that applies every entry, so whatever
 * depends on a reply (a group commit's next entry, the executor's continuations, a caller's
 * callbacks on a submission's future) would otherwise hold up the application of every entry behind
 * it. Answers to reads leave the apply thread too ({@link #read}).
 */
final class LocalSubmitter implements AutoCloseable {
  private final RaftServer server;
  private final RaftGroupId group;
  private final ClientId clientId;
  private final AtomicLong callIds = new AtomicLong();
  private final ThreadPoolExecutor replies;
  private final ThreadPoolExecutor readReplies;
  private final BooleanSupplier onApplyThread;
  private volatile RaftClientAsynchronousProtocol division;

  /**
   * @param clientId the id this submitter's requests carry: the state machine accepts the
   *     executor's own commands only from it, so it must never be used by anything else
   * @param onApplyThread whether the calling thread is the one Ratis applies entries on
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
    this.onApplyThread = onApplyThread;
    this.replies = replyThread("baton-" + nodeId + "-replies");
    // reads move off the apply thread to their own: a large answer must not hold up the
    // executor's writes
    this.readReplies = replyThread("baton-" + nodeId + "-read-replies");
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
   *
   * <p>The request goes to the server's division directly, not through the server's client request
   * path, which hands every request to a thread of its own and waits there until the request is
   * under way. The answer continues on the thread that produced it (the caller's, on a leader with
   * a lease; the one that took the leader's read index, on a follower), except on the apply thread
   * (a read that waited for this member to apply its read index): from there it moves to this
   * submitter's read thread.
   */
  CompletableFuture<QueryReply> read(Query query) {
    RaftClientRequest request =
        RaftClientRequest.newBuilder()
            .setClientId(clientId)
            .setServerId(server.getId())
            .setGroupId(group)
            .setCallId(callIds.incrementAndGet())
            .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(query.toByteArray())))
            .setType(RaftClientRequest.readRequestType())
            .build();
    try {
      return readTarget()
          .submitClientRequestAsync(request)
          .thenApplyAsync(LocalSubmitter::queryReply, this::offApplyThread);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The division of this node's group when it takes requests itself; else the server. */
  private RaftClientAsynchronousProtocol readTarget() {
    RaftClientAsynchronousProtocol d = division;
    if (d == null) {
      try {
        if (server.getDivision(group) instanceof RaftClientAsynchronousProtocol direct) {
          division = direct;
          return direct;
        }
      } catch (IOException notYet) {
        // the server's path answers with the reason
      }
      return server;
    }
    return d;
  }

  /**
   * Runs a read's continuation on the calling thread, or on the read thread when called on the
   * apply thread. The continuation completes the read's future where it runs, so everything that
   * waits on it runs there too.
   */
  private void offApplyThread(Runnable continuation) {
    if (onApplyThread.getAsBoolean()) {
      readReplies.execute(continuation);
    } else {
      continuation.run();
    }
  }

  private static QueryReply queryReply(RaftClientReply reply) {
    try {
      return QueryReply.parseFrom(RaftReplies.content(reply));
    } catch (InvalidProtocolBufferException e) {
      throw new CompletionException(new IOException("unreadable query reply", e));
    }
  }

  /** Stops the reply threads once the replies queued for them are delivered. */
  @Override
  public void close() {
    replies.shutdown();
    readReplies.shutdown();
  }
}
