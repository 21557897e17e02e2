package dev.baton.consensus;

import com.google.protobuf.ByteString;
import dev.baton.consensus.proto.Abort;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.Submit;
import dev.baton.consensus.proto.SubmitResult;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.store.ProcedureStore;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.ExitUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member of a procedure cluster: a Ratis peer whose state machine holds every procedure, and,
 * while it is the ready leader, the only executor running them.
 *
 * <p>Life of a leadership (see {@link LeaderTerm}): Ratis says the node is ready as leader (every
 * entry of earlier terms applied) → role {@link NodeRole#LEADER_RECOVERING} and a background task
 * builds a brand-new executor from the replicated table, stamped with the term → {@link
 * NodeRole#LEADER_RUNNING}. Losing leadership fails the store at once and stops the executor on the
 * background thread; Ratis' own threads are never blocked.
 *
 * <p>Submissions, from any node, are log entries the state machine de-duplicates by nonce and
 * numbers from the replicated counter; the leader adopts each applied submission into its executor.
 * Queries are linearizable reads of the replicated table and any node answers them.
 */
public final class ProcedureNode<Env> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProcedureNode.class);

  /** The client id of admin requests (snapshot, leadership) this node makes of its own server. */
  private static final ClientId ADMIN_CLIENT = ClientId.randomId();

  private static final AtomicLong ADMIN_CALL_IDS = new AtomicLong();

  /**
   * A requested snapshot is taken once one entry was applied since the last (Ratis' default gap,
   * 1,024 entries, would make a request a no-op answered with the old index).
   */
  private static final long SNAPSHOT_CREATION_GAP = 1;

  /**
   * Workers of a leader executor: steps wait on Raft commits (milliseconds), so concurrency, not
   * CPU, bounds the step rate; group commit turns many concurrent writes into one entry.
   */
  public static final int DEFAULT_WORKERS = 16;

  /** Maximum workers (with temporary keep-alive workers) as a multiple of the core workers. */
  public static final int MAX_WORKERS_FACTOR = 4;

  /** The largest serialized submission accepted. */
  public static final int MAX_SUBMISSION_BYTES = 4 << 20;

  private final String nodeId;
  private final Map<String, InetSocketAddress> peers;
  private final RaftGroup group;
  private final Path storageDir;
  private final ProcedureRegistry registry;
  private final ProcedureCodec codec;
  private final Function<LeaderContext, Env> environment;
  private final List<Consumer<ProcedureExecutor.Builder<Env>>> executorTuning;
  private final RaftSettings raftSettings;
  private final EntryBatcher.Limits batchLimits;
  private final LongSupplier clock;
  private final BiFunction<LeaderContext, ProcedureStore, ProcedureStore> storeDecorator;
  private final ProcedureStateMachine stateMachine = new ProcedureStateMachine();
  private final LeadershipManager<Env> leadership;
  private final ReplicatedMetadata metadata;
  private RaftServer server;
  private ProcedureClient client;
  private LocalSubmitter local;
  private EntryBatcher<SubmitResult> submissions;

  private ProcedureNode(Builder<Env> b) {
    this.nodeId = b.nodeId;
    this.peers = Map.copyOf(b.peers);
    this.group = ProcedureGroup.of(b.peers);
    this.storageDir = b.storageDir;
    this.registry = b.registry;
    this.codec = new ProcedureCodec(b.registry);
    this.environment = b.environment;
    this.executorTuning = List.copyOf(b.tuning);
    this.raftSettings = b.raft;
    this.batchLimits = EntryBatcher.Limits.defaults();
    this.clock = b.clock;
    this.storeDecorator = b.storeDecorator;
    this.leadership = new LeadershipManager<>(this, b.relaunchBackoff, b.relaunchGiveUp);
    this.metadata =
        new ReplicatedMetadata(
            stateMachine,
            this::localSubmitter,
            this::requireClient,
            nodeId,
            raftSettings.requestTimeout());
  }

  public static <Env> Builder<Env> builder() {
    return new Builder<>();
  }

  /** Starts the Raft peer; leadership and recovery follow in the background. */
  public synchronized void start() throws IOException {
    if (server != null) {
      throw new IllegalStateException("node " + nodeId + " is already started");
    }
    // Ratis exits the JVM on some start failures (e.g. a port already taken). A library embedded
    // in a ConfigNode must not: it throws instead, and start() reports a clear IOException.
    ExitUtils.disableSystemExit();
    Files.createDirectories(storageDir);
    int port = ProcedureGroup.port(peers, nodeId);
    boolean existing = ProcedureGroup.hasStorage(storageDir);
    stateMachine.setListener(leadership);
    RaftServer s =
        RaftServer.newBuilder()
            .setServerId(RaftPeerId.valueOf(nodeId))
            .setGroup(group)
            .setProperties(raftSettings.serverProperties(storageDir, port))
            .setStateMachine(stateMachine)
            .setOption(
                existing ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
            .build();
    // set before the server starts: Ratis may call back (a single peer elects itself at once), and
    // division() must find the server; it waits for this method, both being synchronized
    server = s;
    try {
      s.start();
    } catch (IOException | RuntimeException e) {
      server = null;
      closeAfterFailedStart(s);
      throw startFailure(e);
    }
    local = new LocalSubmitter(server, group.getGroupId());
    LocalSubmitter raft = local;
    submissions =
        new EntryBatcher<>(
            envelopes -> submitEntry(raft, envelopes),
            () -> new NotLeaderException("node " + nodeId + " stopped"),
            batchLimits);
    client = new ProcedureClient(group, registry, raftSettings);
    LOG.info(
        "Procedure node {} started ({} storage in {})",
        nodeId,
        existing ? "existing" : "new",
        storageDir);
  }

  /**
   * The error of a failed start. Ratis starts the state machine on its own threads and reports what
   * it threw (e.g. a {@link CorruptSnapshotException} naming the file) wrapped in an unchecked
   * {@code CompletionException}; the caller gets the I/O error itself.
   */
  private IOException startFailure(Exception e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CorruptSnapshotException corrupt) {
        return corrupt;
      }
    }
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    return new IOException("node " + nodeId + " could not start: " + cause.getMessage(), cause);
  }

  /**
   * Frees the ports and files a server that failed to start may hold, so the node can start again.
   */
  private void closeAfterFailedStart(RaftServer s) {
    try {
      s.close();
    } catch (IOException | RuntimeException e) {
      LOG.warn("Node {}: error closing the Raft server after a failed start", nodeId, e);
    }
  }

  /** Stops the executor (if leading), the Raft peer and the client. Idempotent. */
  @Override
  public void close() {
    RaftServer s;
    ProcedureClient c;
    EntryBatcher<SubmitResult> batcher;
    synchronized (this) {
      s = server;
      c = client;
      batcher = submissions;
      server = null;
      client = null;
      submissions = null;
    }
    if (batcher != null) {
      batcher.stop();
    }
    leadership.shutdown();
    if (c != null) {
      c.close();
    }
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        LOG.warn("Error closing the Raft server of node {}", nodeId, e);
      }
    }
  }

  public String nodeId() {
    return nodeId;
  }

  /** The cluster's members, by node id. */
  public Map<String, InetSocketAddress> peers() {
    return peers;
  }

  public NodeRole role() {
    return leadership.role();
  }

  public boolean isLeader() {
    return division().map(d -> d.getInfo().isLeader()).orElse(false);
  }

  public Optional<String> leaderId() {
    return division().map(d -> d.getInfo().getLeaderId()).map(RaftPeerId::toString);
  }

  /** The current Raft term as this node knows it. */
  public long term() {
    return division().map(d -> d.getInfo().getCurrentTerm()).orElse(0L);
  }

  /** The running executor's leader context (term = fencing token), if this node leads. */
  public Optional<LeaderContext> leaderContext() {
    return leadership.context();
  }

  /** The last recovery this node ran as leader, if any. */
  public Optional<LeadershipManager.Recovery> lastRecovery() {
    return leadership.lastRecovery();
  }

  /**
   * The live executor while this node is {@link NodeRole#LEADER_RUNNING}; for tests and metrics.
   */
  public Optional<ProcedureExecutor<Env>> executor() {
    return leadership.executor();
  }

  /** Application metadata replicated beside the procedures. */
  public ReplicatedMetadata metadata() {
    return metadata;
  }

  /** This node's replicated state machine (counters, for metrics and benchmarks). */
  public ProcedureStateMachine stateMachine() {
    return stateMachine;
  }

  /**
   * Asks this node to take a snapshot of its state machine now (Ratis purges the log behind it);
   * completes with the index of the snapshot (the previous one's if nothing was applied since), or
   * fails with the server's reason.
   */
  public CompletableFuture<Long> takeSnapshot() {
    RaftServer s = server;
    if (s == null) {
      return CompletableFuture.failedFuture(new IllegalStateException(nodeId + " is not started"));
    }
    SnapshotManagementRequest request =
        SnapshotManagementRequest.newCreate(
            ADMIN_CLIENT,
            RaftPeerId.valueOf(nodeId),
            ProcedureGroup.GROUP_ID,
            ADMIN_CALL_IDS.incrementAndGet(),
            raftSettings.requestTimeout().toMillis(),
            SNAPSHOT_CREATION_GAP);
    return bounded(
        s.snapshotManagementAsync(request)
            .thenApply(
                reply -> {
                  if (!reply.isSuccess()) {
                    throw new CompletionException(
                        new IOException(nodeId + ": snapshot refused: " + reply.getException()));
                  }
                  return reply.getLogIndex();
                }),
        "snapshot");
  }

  /** Store writes and id reservations rejected by this node's state machine for a stale term. */
  public long rejectedWriteCount() {
    return stateMachine.rejectedWriteCount();
  }

  /**
   * Submits a new root procedure through the replicated log; completes with its id once the
   * submission is committed. A repeated nonce completes with the first submission's id.
   */
  public CompletableFuture<Long> submit(Procedure<Env> proc, NonceKey nonce) {
    byte[] envelope;
    try {
      envelope = codec.encodeSubmission(proc, nonce, clock.getAsLong());
    } catch (IOException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (envelope.length > MAX_SUBMISSION_BYTES) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(
              "procedure "
                  + proc.getType()
                  + " serializes to "
                  + envelope.length
                  + " bytes; the limit is "
                  + MAX_SUBMISSION_BYTES));
    }
    ByteString bytes = ByteString.copyFrom(envelope);
    return bounded(
        submitLocallyOrForward(bytes)
            .thenApply(result -> ProcedureClient.procIdOf(result, proc.getType())),
        "submission of " + proc.getType());
  }

  /**
   * On the leader, the submission joins the next group-committed entry; elsewhere (or when the
   * leader moved meanwhile) it goes to the leader through the client.
   */
  private CompletableFuture<SubmitResult> submitLocallyOrForward(ByteString envelope) {
    EntryBatcher<SubmitResult> batcher;
    synchronized (this) {
      batcher = submissions;
    }
    if (batcher == null || !isLeader()) {
      return requireClient().submit(envelope);
    }
    return batcher
        .add(envelope)
        .exceptionallyCompose(
            e ->
                unwrap(e) instanceof NotLeaderException
                    ? requireClient().submit(envelope)
                    : CompletableFuture.failedFuture(unwrap(e)));
  }

  private static CompletableFuture<List<SubmitResult>> submitEntry(
      LocalSubmitter raft, List<ByteString> envelopes) {
    Command command =
        Command.newBuilder().setSubmit(Submit.newBuilder().addAllEnvelopes(envelopes)).build();
    return raft.submit(command).thenApply(ProcedureClient::submitResults);
  }

  /** Asks the leader's executor to abort a procedure; false if unknown, finished or refused. */
  public CompletableFuture<Boolean> abort(long procId) {
    Command command = Command.newBuilder().setAbort(Abort.newBuilder().setProcId(procId)).build();
    return bounded(send(command).thenApply(CommandReply::getAborted), "abort of " + procId);
  }

  /**
   * A linearizable read of one procedure, answered by this node (or by the leader when this node
   * cannot answer in time).
   */
  public CompletableFuture<Optional<ProcedureInfo>> getInfo(long procId) {
    return bounded(
        requireClient().getInfoAsync(procId, RaftPeerId.valueOf(nodeId)),
        "read of procedure " + procId);
  }

  /** A linearizable read of every procedure, answered like {@link #getInfo}. */
  public CompletableFuture<List<ProcedureInfo>> list() {
    return bounded(requireClient().listAsync(RaftPeerId.valueOf(nodeId)), "list");
  }

  /**
   * Every call of this node completes within the request timeout, and fails with an {@link
   * IOException} that says why: no leader or no majority (a timeout), not leader, or refused. A
   * local submission on a leader that lost its majority would otherwise wait until Ratis steps it
   * down, then start the client's own timeout again; and a bare {@code TimeoutException} says
   * nothing to the caller.
   */
  private <T> CompletableFuture<T> bounded(CompletableFuture<T> call, String what) {
    Duration timeout = raftSettings.requestTimeout();
    return call.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .handle(
            (value, error) -> {
              if (error != null) {
                throw new CompletionException(
                    ProcedureClient.asIOException(unwrap(error), what, timeout));
              }
              return value;
            });
  }

  /**
   * On the leader: append through the local server; elsewhere, through the client to the leader.
   */
  private CompletableFuture<CommandReply> send(Command command) {
    LocalSubmitter l;
    synchronized (this) {
      l = local;
    }
    if (l != null && isLeader()) {
      return l.submit(command)
          .exceptionallyCompose(
              e ->
                  unwrap(e) instanceof NotLeaderException
                      ? requireClient().send(command)
                      : CompletableFuture.failedFuture(unwrap(e)));
    }
    return requireClient().send(command);
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }

  private synchronized ProcedureClient requireClient() {
    if (client == null) {
      throw new IllegalStateException("node " + nodeId + " is not started");
    }
    return client;
  }

  synchronized Optional<RaftServer.Division> division() {
    if (server == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(server.getDivision(group.getGroupId()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  synchronized LocalSubmitter localSubmitter() {
    return local;
  }

  ProcedureRegistry registry() {
    return registry;
  }

  Function<LeaderContext, Env> environment() {
    return environment;
  }

  /** Applies the builder's executor settings to a new leader executor's builder. */
  void tune(ProcedureExecutor.Builder<Env> builder) {
    builder.coreWorkers(DEFAULT_WORKERS).maxWorkers(DEFAULT_WORKERS * MAX_WORKERS_FACTOR);
    for (Consumer<ProcedureExecutor.Builder<Env>> t : executorTuning) {
      t.accept(builder);
    }
  }

  /** Wraps each leader executor's store (tests inject store failures with it). */
  BiFunction<LeaderContext, ProcedureStore, ProcedureStore> storeDecorator() {
    return storeDecorator;
  }

  Duration requestTimeout() {
    return raftSettings.requestTimeout();
  }

  /**
   * Asks this node's Raft server to hand leadership to {@code target}, or, if null, to step down so
   * that the next election picks a leader.
   */
  CompletableFuture<RaftClientReply> transferLeadership(RaftPeerId target, Duration timeout) {
    RaftServer s;
    synchronized (this) {
      s = server;
    }
    if (s == null) {
      return CompletableFuture.failedFuture(new IllegalStateException(nodeId + " is not started"));
    }
    TransferLeadershipRequest request =
        new TransferLeadershipRequest(
            ADMIN_CLIENT,
            RaftPeerId.valueOf(nodeId),
            ProcedureGroup.GROUP_ID,
            ADMIN_CALL_IDS.incrementAndGet(),
            target,
            timeout.toMillis());
    try {
      return s.transferLeadershipAsync(request);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  EntryBatcher.Limits batchLimits() {
    return batchLimits;
  }

  LongSupplier clock() {
    return clock;
  }

  @Override
  public String toString() {
    return "ProcedureNode{" + nodeId + "}";
  }

  /** Builds a {@link ProcedureNode}. */
  public static final class Builder<Env> {
    private String nodeId;
    private Map<String, InetSocketAddress> peers = new LinkedHashMap<>();
    private Path storageDir;
    private ProcedureRegistry registry;
    private Function<LeaderContext, Env> environment;
    private final List<Consumer<ProcedureExecutor.Builder<Env>>> tuning = new ArrayList<>();
    private RaftSettings raft = RaftSettings.defaults();
    private LongSupplier clock = System::currentTimeMillis;
    private BiFunction<LeaderContext, ProcedureStore, ProcedureStore> storeDecorator =
        (leader, store) -> store;
    private Duration relaunchBackoff = LeadershipManager.DEFAULT_RELAUNCH_BACKOFF;
    private Duration relaunchGiveUp = LeadershipManager.DEFAULT_RELAUNCH_GIVE_UP;

    private Builder() {}

    public Builder<Env> nodeId(String id) {
      this.nodeId = id;
      return this;
    }

    public Builder<Env> peers(Map<String, InetSocketAddress> peers) {
      this.peers = new LinkedHashMap<>(peers);
      return this;
    }

    public Builder<Env> storageDir(Path dir) {
      this.storageDir = dir;
      return this;
    }

    public Builder<Env> registry(ProcedureRegistry registry) {
      this.registry = registry;
      return this;
    }

    /** Makes the environment each new leader executor runs with, given its leader context. */
    public Builder<Env> environment(Function<LeaderContext, Env> environment) {
      this.environment = environment;
      return this;
    }

    public Builder<Env> coreWorkers(int n) {
      return executor(b -> b.coreWorkers(n));
    }

    public Builder<Env> maxWorkers(int n) {
      return executor(b -> b.maxWorkers(n));
    }

    public Builder<Env> stuckThreshold(Duration d) {
      return executor(b -> b.stuckThreshold(d));
    }

    public Builder<Env> completedRetention(Duration d) {
      return executor(b -> b.completedRetention(d));
    }

    /** Any other executor setting, applied to every leader executor this node builds. */
    public Builder<Env> executor(Consumer<ProcedureExecutor.Builder<Env>> setting) {
      tuning.add(Objects.requireNonNull(setting, "setting"));
      return this;
    }

    public Builder<Env> raft(RaftSettings settings) {
      this.raft = Objects.requireNonNull(settings, "settings");
      return this;
    }

    public Builder<Env> electionTimeouts(Duration min, Duration max) {
      this.raft = raft.withElectionTimeouts(min, max);
      return this;
    }

    public Builder<Env> snapshotEvery(long entries) {
      this.raft = raft.withSnapshotEvery(entries);
      return this;
    }

    public Builder<Env> requestTimeout(Duration timeout) {
      this.raft = raft.withRequestTimeout(timeout);
      return this;
    }

    /**
     * When the leader's executor stops by itself while the node stays leader, a new one is launched
     * in the same term; failed launches are retried after {@code backoff} (doubling), and after
     * {@code giveUpAfter} without a running executor the node hands leadership to another node.
     */
    public Builder<Env> executorRelaunch(Duration backoff, Duration giveUpAfter) {
      if (backoff.isNegative() || backoff.isZero() || giveUpAfter.isNegative()) {
        throw new IllegalArgumentException(
            "executor relaunch needs a positive backoff and a non-negative give-up bound: "
                + backoff
                + ", "
                + giveUpAfter);
      }
      this.relaunchBackoff = backoff;
      this.relaunchGiveUp = giveUpAfter;
      return this;
    }

    /** Wraps each leader executor's store; a test hook (e.g. to inject store failures). */
    Builder<Env> storeDecorator(BiFunction<LeaderContext, ProcedureStore, ProcedureStore> d) {
      this.storeDecorator = Objects.requireNonNull(d, "decorator");
      return this;
    }

    /** Clock for submission times (tests). */
    public Builder<Env> clock(LongSupplier clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public ProcedureNode<Env> build() {
      Objects.requireNonNull(nodeId, "nodeId");
      Objects.requireNonNull(storageDir, "storageDir");
      Objects.requireNonNull(registry, "registry");
      Objects.requireNonNull(environment, "environment");
      if (!peers.containsKey(nodeId)) {
        throw new IllegalArgumentException(
            "peers " + peers.keySet() + " do not include this node " + nodeId);
      }
      return new ProcedureNode<>(this);
    }
  }
}
