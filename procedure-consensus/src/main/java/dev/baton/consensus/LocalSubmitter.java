package dev.baton.consensus;

import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;

/**
 * Appends commands through this node's own Raft server, without a gRPC hop: a Raft client, even in
 * the same process, pays a serialization and a loopback round trip per request. Only useful on the
 * leader; elsewhere the reply is a not-leader error.
 *
 * <p>Replies complete on this submitter's own thread, in the order Ratis gives them, never on the
 * Raft apply thread that produces them: Ratis completes a leader's pending request right after
 * {@code applyTransaction}, on the one thread that applies every entry, so whatever depends on a
 * reply (a group commit's next entry, the executor's continuations, a caller's callbacks on a
 * submission's future) would otherwise hold up the application of every entry behind it.
 */
final class LocalSubmitter implements AutoCloseable {
  private final RaftServer server;
  private final RaftGroupId group;
  private final ClientId clientId;
  private final AtomicLong callIds = new AtomicLong();
  private final ThreadPoolExecutor replies;

  /**
   * @param clientId the id this submitter's requests carry: the state machine accepts the
   *     executor's own commands only from it, so it must never be used by anything else
   */
  LocalSubmitter(RaftServer server, ClientId clientId, RaftGroupId group, String nodeId) {
    this.server = server;
    this.clientId = clientId;
    this.group = group;
    this.replies =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            LeadershipManager.daemon("baton-" + nodeId + "-replies"),
            // after close: complete on the replying thread rather than never
            (task, closed) -> task.run());
  }

  CompletableFuture<CommandReply> submit(Command command) {
    RaftClientRequest request =
        RaftClientRequest.newBuilder()
            .setClientId(clientId)
            .setServerId(server.getId())
            .setGroupId(group)
            .setCallId(callIds.incrementAndGet())
            .setMessage(RaftReplies.message(command))
            .setType(RaftClientRequest.writeRequestType())
            .build();
    try {
      return server
          .submitClientRequestAsync(request)
          .thenApplyAsync(RaftReplies::commandReply, replies);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Stops the reply thread once the replies queued for it are delivered. */
  @Override
  public void close() {
    replies.shutdown();
  }
}
