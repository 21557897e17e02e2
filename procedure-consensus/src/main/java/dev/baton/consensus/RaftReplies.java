package dev.baton.consensus;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.protocol.exceptions.ReadIndexException;
import org.apache.ratis.protocol.exceptions.ServerNotReadyException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * Encoding of commands into Ratis messages and decoding of Ratis replies and failures into clear
 * errors.
 */
final class RaftReplies {
  private RaftReplies() {}

  static Message message(Command command) {
    return Message.valueOf(UnsafeByteOperations.unsafeWrap(command.toByteArray()));
  }

  /**
   * The state machine's reply, or a {@link CompletionException} wrapping a clear {@link
   * IOException}: {@link dev.baton.consensus.NotLeaderException} when the server was not leader.
   */
  static CommandReply commandReply(RaftClientReply reply) {
    return parse(content(reply));
  }

  static byte[] content(RaftClientReply reply) {
    if (!reply.isSuccess()) {
      NotLeaderException notLeader = reply.getNotLeaderException();
      if (notLeader != null) {
        throw new CompletionException(
            new dev.baton.consensus.NotLeaderException(
                "server "
                    + reply.getServerId()
                    + " is not the leader"
                    + (notLeader.getSuggestedLeader() == null
                        ? ""
                        : "; the leader is " + notLeader.getSuggestedLeader().getId())));
      }
      RaftException e = reply.getException();
      throw new CompletionException(
          new IOException(
              "request failed on server "
                  + reply.getServerId()
                  + ": "
                  + (e == null ? "no reason given" : e.getMessage()),
              e));
    }
    return reply.getMessage().getContent().toByteArray();
  }

  private static CommandReply parse(byte[] bytes) {
    try {
      return CommandReply.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new CompletionException(new IOException("unreadable reply from the state machine", e));
    }
  }

  /** {@code e} without the {@link CompletionException}s that wrap it. */
  static Throwable unwrap(Throwable e) {
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** Ratis' answers while no leader is elected and ready, or this one is stepping down. */
  static boolean isNoLeaderYet(Throwable e) {
    return e instanceof ReadIndexException
        || e instanceof ServerNotReadyException
        || e instanceof LeaderSteppingDownException
        || e instanceof NotLeaderException
        || e instanceof dev.baton.consensus.NotLeaderException;
  }

  /**
   * The refusal of a member's Raft port for the caller's identity ({@link AccessInterceptor}) in
   * {@code error}'s causes, or null.
   */
  static SecurityException accessRefusal(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof SecurityException refused) {
        return refused;
      }
    }
    return null;
  }

  /** A clear error for a failed call; a timeout means no leader or no majority answered. */
  static IOException asIOException(Throwable cause, String what, Duration timeout) {
    if (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof TimeoutException) {
      return new IOException(
          what
              + " got no answer within "
              + timeout
              + ": no leader, or no majority of the cluster reachable");
    }
    if (isNoLeaderYet(cause)) {
      return new IOException(
          what
              + " failed: no leader, or no majority of the cluster reachable ("
              + cause.getMessage()
              + ")",
          cause);
    }
    SecurityException denied = accessRefusal(cause);
    if (denied != null) {
      return new IOException(what + " refused by the cluster: " + denied.getMessage(), cause);
    }
    if (cause instanceof StateMachineException refused && refused.getCause() != null) {
      // the leader refused the entry before appending it (EntryAdmission): say why, not where
      return new IOException(what + " refused: " + refused.getCause().getMessage(), refused);
    }
    if (cause instanceof IOException io) {
      return io;
    }
    return new IOException(what + " failed: " + cause, cause);
  }
}
