package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.baton.consensus.spi.LoopbackPorts;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto.AppendResult;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftGroupIdProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.proto.RaftProtos.TermIndexProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower whose log refused one append (an entry that does not fit its log) takes the leader's
 * next valid entries: the failure stays with its own request. An entry past the end of its log gets
 * an inconsistency reply with the index the follower needs next. A real Ratis server (gRPC, files)
 * with Baton's settings gets the append requests of a leader that is never started, handed to the
 * server as its gRPC service hands them.
 */
@Timeout(60)
class FollowerAppendFailureTest {
  /** The leader's term; the follower starts at term 0 and adopts it from the first request. */
  static final long TERM = 2;

  /**
   * A term older than the follower's last entry: the log refuses an entry of it after one of TERM.
   */
  static final long OLDER_TERM = TERM - 1;

  /** How long one append request may take. */
  static final long REPLY_SECONDS = 10;

  static final RaftPeerId FOLLOWER = RaftPeerId.valueOf("f");
  static final RaftPeerId LEADER = RaftPeerId.valueOf("ghost");

  @TempDir Path dir;

  private RaftServer server;
  private final RaftGroupId groupId = RaftGroupId.valueOf(UUID.randomUUID());
  private final ClientId client = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();

  @AfterEach
  void close() throws IOException {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aRefusedAppendDoesNotRefuseTheNextOnes() throws Exception {
    startFollower();
    assertEquals(AppendResult.SUCCESS, append(null, entry(TERM, 0)).getResult());
    TermIndexProto first = TermIndexProto.newBuilder().setTerm(TERM).setIndex(0).build();
    // the follower's log refuses an entry whose term is older than its last entry's
    ExecutionException refused =
        assertThrows(ExecutionException.class, () -> append(first, entry(OLDER_TERM, 1)));
    assertEquals(
        AppendResult.SUCCESS,
        append(first, entry(TERM, 1)).getResult(),
        () -> "after " + refused.getCause());
    TermIndexProto second = TermIndexProto.newBuilder().setTerm(TERM).setIndex(1).build();
    assertEquals(AppendResult.SUCCESS, append(second, entry(TERM, 2)).getResult());
    assertEquals(2, server.getDivision(groupId).getRaftLog().getLastEntryTermIndex().getIndex());
  }

  @Test
  void anEntryPastTheEndOfTheLogGetsAnInconsistencyReply() throws Exception {
    startFollower();
    assertEquals(AppendResult.SUCCESS, append(null, entry(TERM, 0)).getResult());
    // the leader sends 5 as if the follower held 4; it holds only 0
    AppendEntriesReplyProto gap =
        append(TermIndexProto.newBuilder().setTerm(TERM).setIndex(4).build(), entry(TERM, 5));
    assertEquals(AppendResult.INCONSISTENCY, gap.getResult());
    assertEquals(1, gap.getNextIndex());
    TermIndexProto first = TermIndexProto.newBuilder().setTerm(TERM).setIndex(0).build();
    assertEquals(AppendResult.SUCCESS, append(first, entry(TERM, 1)).getResult());
  }

  /** Starts the follower, a member of a group of two whose other member never runs. */
  private void startFollower() throws IOException {
    int port = LoopbackPorts.free();
    RaftGroup group =
        RaftGroup.valueOf(
            groupId, List.of(peer(FOLLOWER, port), peer(LEADER, LoopbackPorts.free())));
    server =
        RaftServer.newBuilder()
            .setServerId(FOLLOWER)
            .setGroup(group)
            .setProperties(RaftSettings.defaults().serverProperties(dir, "127.0.0.1", port))
            .setStateMachine(new BaseStateMachine())
            .setOption(RaftStorage.StartupOption.FORMAT)
            .build();
    server.start();
  }

  private static RaftPeer peer(RaftPeerId id, int port) {
    return RaftPeer.newBuilder().setId(id).setAddress("127.0.0.1:" + port).build();
  }

  private LogEntryProto entry(long term, long index) {
    return LogEntryProto.newBuilder()
        .setTerm(term)
        .setIndex(index)
        .setStateMachineLogEntry(
            StateMachineLogEntryProto.newBuilder()
                .setLogData(ByteString.copyFromUtf8("entry " + index))
                .setClientId(client.toByteString())
                .setCallId(index))
        .build();
  }

  /**
   * The follower's reply to one request of the leader; a failure (thrown at once or completing the
   * reply) as an {@link ExecutionException}.
   */
  private AppendEntriesReplyProto append(TermIndexProto previous, LogEntryProto entry)
      throws Exception {
    AppendEntriesRequestProto.Builder b =
        AppendEntriesRequestProto.newBuilder()
            .setServerRequest(
                RaftRpcRequestProto.newBuilder()
                    .setRequestorId(LEADER.toByteString())
                    .setReplyId(FOLLOWER.toByteString())
                    .setRaftGroupId(RaftGroupIdProto.newBuilder().setId(groupId.toByteString()))
                    .setCallId(callIds.incrementAndGet()))
            .setLeaderTerm(TERM)
            .setLeaderCommit(-1)
            .setInitializing(false)
            .addEntries(entry);
    if (previous != null) {
      b.setPreviousLog(previous);
    }
    CompletableFuture<AppendEntriesReplyProto> reply;
    try {
      reply = server.appendEntriesAsync(b.build());
    } catch (IOException | RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    return reply.get(REPLY_SECONDS, TimeUnit.SECONDS);
  }
}
