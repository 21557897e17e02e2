package dev.baton.consensus;

import dev.baton.procedure.store.DurableFiles;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.ExitUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis server of a {@link ProcedureNode}: built on the node's storage directory (formatting a
 * new one, recovering an existing one), started, asked for its division (role, term, leader), sent
 * admin requests (a snapshot now, hand leadership away, change the group's configuration), closed.
 * A failed start is a clear error and leaves nothing bound or locked behind.
 *
 * <p>A member that joins a running cluster starts its server with an empty group (Ratis' advice:
 * with the full group it could start an election before the others know it); the leader's
 * configuration change brings it in. Its known members still serve the lost-storage check.
 */
final class RaftPeer {
  private static final Logger LOG = LoggerFactory.getLogger(RaftPeer.class);

  /** The client id of admin requests nodes make of their own servers. */
  private static final ClientId ADMIN_CLIENT = ClientId.randomId();

  private static final AtomicLong ADMIN_CALL_IDS = new AtomicLong();

  /**
   * A requested snapshot is taken once one entry was applied since the last (Ratis' default gap,
   * 1,024 entries, would make a request a no-op answered with the old index).
   */
  private static final long SNAPSHOT_CREATION_GAP = 1;

  private final String nodeId;
  private final Map<String, InetSocketAddress> peers;
  private final RaftGroup group;
  private final RaftGroup serverGroup;
  private final String clusterId;
  private final Path storageDir;
  private final Duration requestTimeout;
  private final String bindHost;
  private final RaftSecurity security;
  private volatile RaftServer server;

  /** Where the server's gRPC runs Ratis' calls; shut down after the server closes. */
  private volatile ExecutorService raftCalls;

  private volatile LeaderlessWatch watch;
  private volatile PeerReconnect reconnect;

  /**
   * @param group the group of the members this node knows (those it was started with)
   * @param joining whether this node joins a running cluster: its server starts with an empty group
   * @param bindHost the address the server listens on (its port is its peer address')
   * @param security plaintext or mutual TLS, for the server and the clients it makes
   */
  RaftPeer(
      String nodeId,
      Map<String, InetSocketAddress> peers,
      RaftGroup group,
      boolean joining,
      String clusterId,
      Path storageDir,
      Duration requestTimeout,
      String bindHost,
      RaftSecurity security) {
    this.nodeId = nodeId;
    this.peers = peers;
    this.group = group;
    this.serverGroup = joining ? RaftGroup.valueOf(group.getGroupId(), List.of()) : group;
    this.clusterId = clusterId;
    this.storageDir = storageDir;
    this.requestTimeout = requestTimeout;
    this.bindHost = bindHost;
    this.security = security;
  }

  /**
   * Builds and starts the server, its port also serving {@code readIndex}. The server is visible to
   * {@link #division} before it starts: Ratis may call back at once (a single peer elects itself).
   */
  void start(RaftSettings settings, ProcedureStateMachine stateMachine, ReadIndexService readIndex)
      throws IOException {
    // Ratis exits the JVM on some start failures (e.g. a port already taken). A library embedded
    // in a ConfigNode must not: it throws instead, and start() reports a clear IOException.
    ExitUtils.disableSystemExit();
    DurableFiles.createPrivateDirectories(storageDir);
    int port = ProcedureGroup.port(peers, nodeId);
    boolean existing = ProcedureGroup.hasStorage(storageDir, group.getGroupId(), clusterId);
    if (!existing) {
      LostStorageCheck.check(nodeId, group, storageDir, security);
    }
    ExecutorService calls =
        Executors.newCachedThreadPool(LeadershipManager.daemon("baton-" + nodeId + "-raft-calls"));
    raftCalls = calls;
    RaftServer s;
    try {
      s =
          RaftServer.newBuilder()
              .setServerId(RaftPeerId.valueOf(nodeId))
              .setGroup(serverGroup)
              .setProperties(settings.serverProperties(storageDir, bindHost, port))
              .setParameters(security.serverParameters(nodeId, readIndex, calls))
              .setStateMachine(stateMachine)
              .setOption(
                  existing ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
              .build();
    } catch (IOException | RuntimeException e) {
      calls.shutdown();
      throw e;
    }
    server = s;
    try {
      s.start();
    } catch (IOException | RuntimeException e) {
      server = null;
      calls.shutdown();
      throw failedStart(s, e);
    }
    LeaderlessWatch w =
        new LeaderlessWatch(
            nodeId,
            this::division,
            stateMachine.metrics()::leaderChanges,
            settings.electionTimeoutMax());
    watch = w;
    w.start();
    PeerReconnect r =
        new PeerReconnect(this::division, s.getServerRpc(), settings.electionTimeoutMin());
    reconnect = r;
    r.start();
    LOG.info(
        "Procedure node {} of cluster {} started on {}:{} ({}; {} storage in {})",
        nodeId,
        clusterId,
        bindHost,
        port,
        security.isTls() ? "mutual TLS" : "plaintext",
        existing ? "existing" : "new",
        storageDir);
  }

  /** The started server, or null. */
  RaftServer server() {
    return server;
  }

  Optional<RaftServer.Division> division() {
    RaftServer s = server;
    if (s == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(s.getDivision(group.getGroupId()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** How long this node has known no leader (as of its last check); empty while it knows one. */
  Optional<Duration> leaderlessFor() {
    LeaderlessWatch w = watch;
    return w == null ? Optional.empty() : w.leaderlessFor();
  }

  /** The started server's leader watch, or null. */
  LeaderlessWatch watch() {
    return watch;
  }

  /** The started server's reconnector of its peer channels, or null. */
  PeerReconnect reconnect() {
    return reconnect;
  }

  /** Closes the server if started. Idempotent. */
  void close() {
    LeaderlessWatch w = watch;
    watch = null;
    if (w != null) {
      w.stop();
    }
    PeerReconnect r = reconnect;
    reconnect = null;
    if (r != null) {
      r.stop();
    }
    RaftServer s = server;
    server = null;
    if (s != null) {
      long start = System.nanoTime();
      try {
        s.close();
        LOG.info(
            "Node {}: Raft server closed in {} ms",
            nodeId,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
      } catch (IOException e) {
        LOG.warn("Error closing the Raft server of node {}", nodeId, e);
      }
    }
    ExecutorService calls = raftCalls;
    raftCalls = null;
    if (calls != null) {
      calls.shutdown();
    }
  }

  /** See {@link ProcedureNode#takeSnapshot}; not bounded by a timeout here. */
  CompletableFuture<Long> takeSnapshot() {
    RaftServer s = server;
    if (s == null) {
      return notStarted();
    }
    SnapshotManagementRequest request =
        SnapshotManagementRequest.newCreate(
            ADMIN_CLIENT,
            RaftPeerId.valueOf(nodeId),
            group.getGroupId(),
            ADMIN_CALL_IDS.incrementAndGet(),
            requestTimeout.toMillis(),
            SNAPSHOT_CREATION_GAP);
    return s.snapshotManagementAsync(request)
        .thenApply(
            reply -> {
              if (!reply.isSuccess()) {
                throw new CompletionException(
                    new IOException(nodeId + ": snapshot refused: " + reply.getException()));
              }
              return reply.getLogIndex();
            });
  }

  /**
   * Asks the server to hand leadership to {@code target}, or, if null, to step down so that the
   * next election picks a leader.
   */
  CompletableFuture<RaftClientReply> transferLeadership(RaftPeerId target, Duration timeout) {
    RaftServer s = server;
    if (s == null) {
      return notStarted();
    }
    TransferLeadershipRequest request =
        new TransferLeadershipRequest(
            ADMIN_CLIENT,
            RaftPeerId.valueOf(nodeId),
            group.getGroupId(),
            ADMIN_CALL_IDS.incrementAndGet(),
            target,
            timeout.toMillis());
    try {
      return s.transferLeadershipAsync(request);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Asks the server (the leader) to change the group's configuration as {@code arguments} say;
   * completes once the new configuration is committed, or with the server's refusal in the reply.
   */
  CompletableFuture<RaftClientReply> setConfiguration(SetConfigurationRequest.Arguments arguments) {
    RaftServer s = server;
    if (s == null) {
      return notStarted();
    }
    SetConfigurationRequest request =
        new SetConfigurationRequest(
            ADMIN_CLIENT,
            RaftPeerId.valueOf(nodeId),
            group.getGroupId(),
            ADMIN_CALL_IDS.incrementAndGet(),
            arguments);
    try {
      return s.setConfigurationAsync(request);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private <T> CompletableFuture<T> notStarted() {
    return CompletableFuture.failedFuture(new IllegalStateException(nodeId + " is not started"));
  }

  /**
   * Closes a server that failed to start (freeing its ports and files, so the node can start again)
   * and returns the error to report. Ratis starts the state machine on its own threads and reports
   * what it threw (e.g. a {@link CorruptSnapshotException} naming the file) wrapped in an unchecked
   * {@code CompletionException}; the caller gets the I/O error itself.
   */
  private IOException failedStart(RaftServer s, Exception e) {
    try {
      s.close();
    } catch (IOException | RuntimeException closeError) {
      LOG.warn("Node {}: error closing the Raft server after a failed start", nodeId, closeError);
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CorruptSnapshotException corrupt) {
        return corrupt;
      }
    }
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    return new IOException("node " + nodeId + " could not start: " + cause.getMessage(), cause);
  }
}
