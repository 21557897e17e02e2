package dev.baton.consensus.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.awaitility.Awaitility;

/**
 * The baseline: plain small entries through an async Ratis client into a state machine that only
 * counts, on a 3-peer gRPC cluster on loopback.
 */
final class RawRatisBaseline implements AutoCloseable {
  /** Bytes per entry, like a small procedure update. */
  static final int ENTRY_BYTES = 200;

  /** Outstanding async requests: enough to keep Ratis' pipeline full, so more add no throughput. */
  static final int WINDOW = 64;

  /** How long the baseline cluster may take to elect its first leader. */
  private static final Duration LEADER_WAIT = Duration.ofSeconds(30);

  /** How often the wait for that leader looks. */
  private static final Duration LEADER_POLL = Duration.ofMillis(10);

  private static final class Counter extends BaseStateMachine {
    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
      var entry = trx.getLogEntry();
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      return CompletableFuture.completedFuture(Message.EMPTY);
    }
  }

  private final List<RaftServer> servers = new ArrayList<>();
  private final RaftClient client;

  RawRatisBaseline(Path dir, Map<String, InetSocketAddress> peers) throws IOException {
    List<RaftPeer> list = new ArrayList<>();
    peers.forEach(
        (id, a) ->
            list.add(
                RaftPeer.newBuilder()
                    .setId(id)
                    .setAddress(a.getHostString() + ":" + a.getPort())
                    .build()));
    RaftGroup group = RaftGroup.valueOf(RaftGroupId.valueOf(UUID.randomUUID()), list);
    for (Map.Entry<String, InetSocketAddress> e : peers.entrySet()) {
      RaftProperties p = new RaftProperties();
      RaftServerConfigKeys.setStorageDir(p, List.of(dir.resolve(e.getKey()).toFile()));
      GrpcConfigKeys.Server.setHost(p, "127.0.0.1");
      GrpcConfigKeys.Server.setPort(p, e.getValue().getPort());
      RaftServer s =
          RaftServer.newBuilder()
              .setServerId(org.apache.ratis.protocol.RaftPeerId.valueOf(e.getKey()))
              .setGroup(group)
              .setProperties(p)
              .setStateMachine(new Counter())
              .setOption(RaftStorage.StartupOption.FORMAT)
              .build();
      s.start();
      servers.add(s);
    }
    RaftProperties cp = new RaftProperties();
    org.apache.ratis.client.RaftClientConfigKeys.Async.setOutstandingRequestsMax(cp, WINDOW * 2);
    // Sent to the leader from the first request: a client that guesses logs an error for every
    // request of its first window that reached a follower.
    client =
        RaftClient.newBuilder()
            .setRaftGroup(group)
            .setLeaderId(awaitLeader(group.getGroupId()))
            .setProperties(cp)
            .build();
  }

  /** The peer that leads {@code groupId}, once one does. */
  private RaftPeerId awaitLeader(RaftGroupId groupId) {
    return Awaitility.await("a raw Ratis leader")
        .atMost(LEADER_WAIT)
        .pollInterval(LEADER_POLL)
        .until(() -> leaderOf(groupId), Objects::nonNull);
  }

  private RaftPeerId leaderOf(RaftGroupId groupId) throws IOException {
    for (RaftServer s : servers) {
      if (s.getDivision(groupId).getInfo().isLeader()) {
        return s.getId();
      }
    }
    return null;
  }

  /** Entries per second over {@code seconds}, with {@link #WINDOW} outstanding. */
  double run(double seconds) throws InterruptedException {
    Semaphore window = new Semaphore(WINDOW);
    AtomicLong done = new AtomicLong();
    Message payload = Message.valueOf(ByteString.copyFrom(new byte[ENTRY_BYTES]));
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    while (System.nanoTime() < end) {
      window.acquire();
      client
          .async()
          .send(payload)
          .whenComplete(
              (r, e) -> {
                if (e == null) {
                  done.incrementAndGet();
                }
                window.release();
              });
    }
    window.acquire(WINDOW);
    double elapsed = (System.nanoTime() - start) / 1e9;
    return done.get() / elapsed;
  }

  @Override
  public void close() throws IOException {
    client.close();
    for (RaftServer s : servers) {
      s.close();
    }
  }
}
