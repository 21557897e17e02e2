package dev.baton.consensus;

import dev.baton.consensus.proto.ListPage;
import dev.baton.consensus.tls.PeerIdentity;
import dev.baton.consensus.tls.TlsSettings;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.OperatorAction;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.store.ProcedureStore;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member of a procedure cluster: a Ratis peer whose state machine holds every procedure, and,
 * while it is the ready leader, the only executor running them.
 *
 * <p>Life of a leadership ({@link LeadershipManager}, {@link LeaderTerm}): Ratis says the node is
 * ready as leader (every entry of earlier terms applied) → role {@link NodeRole#LEADER_RECOVERING}
 * and a background task builds a brand-new executor from the replicated table, stamped with the
 * term → {@link NodeRole#LEADER_RUNNING}. Losing leadership fails the store at once and stops the
 * executor on the background thread; Ratis' own threads are never blocked. An executor that stops
 * by itself while the node stays leader is replaced in the same term.
 *
 * <p>Submissions, from any node, are log entries the state machine de-duplicates by nonce and
 * numbers from the replicated counter; the leader adopts each applied submission into its executor.
 * Queries are linearizable reads of the replicated table and any node answers them.
 *
 * <p>The parts: {@link RaftPeer} (the Ratis server and admin requests), {@link NodeCalls}
 * (submissions, aborts and reads into the cluster), {@link OperatorDesk} (aborts, audited operator
 * actions, the audit trail, a procedure's timeline), {@link ProcedureStateMachine} (the replicated
 * table), {@link LeadershipManager} (the leader's executor), {@link ReplicatedMetadata}.
 */
public final class ProcedureNode<Env> implements AutoCloseable {
  /**
   * The default cap on unfinished root procedures: far above what a metadata service runs at once,
   * low enough that a runaway submitter cannot grow the replicated table until a member runs out of
   * heap (about 1.4 KB of heap per live procedure on each member).
   */
  public static final long DEFAULT_MAX_LIVE_PROCEDURES = 1_000_000;

  /**
   * Workers of a leader executor: steps wait on Raft commits (milliseconds), so concurrency, not
   * CPU, bounds the step rate; group commit turns many concurrent writes into one entry.
   */
  public static final int DEFAULT_WORKERS = 16;

  /** Maximum workers (with temporary keep-alive workers) as a multiple of the core workers. */
  public static final int MAX_WORKERS_FACTOR = 4;

  /** The largest serialized submission accepted. */
  public static final int MAX_SUBMISSION_BYTES = 4 << 20;

  /**
   * The cluster id of a node (and client) that names none: the name every cluster's Raft group id
   * was derived from before cluster ids, so existing storage directories stay valid.
   */
  public static final String DEFAULT_CLUSTER_ID = ProcedureGroup.DEFAULT_CLUSTER_ID;

  private static final Logger LOG = LoggerFactory.getLogger(ProcedureNode.class);

  private final String nodeId;
  private final String clusterId;
  private final RaftGroup group;
  private final MembershipView view;
  private final Membership membership;
  private final RemovalWatch removal;
  private final RaftSecurity security;
  private final String bindHost;
  private final boolean insecureExposure;
  private final ProcedureRegistry registry;
  private final LeaderExecutorSettings<Env> executorSettings;
  private final RaftSettings raftSettings;
  private final LongSupplier clock;
  private final ProcedureStateMachine stateMachine;
  private final ClientId localClient;
  private final LeadershipManager<Env> leadership;
  private final ReplicatedMetadata metadata;
  private final RaftPeer peer;
  private final OperatorDesk operator;
  private final ReadIndexService readIndexService;
  private NodeCalls calls;

  private ProcedureNode(Builder<Env> b) {
    this.nodeId = b.nodeId;
    this.localClient = ClientId.randomId();
    this.stateMachine =
        new ProcedureStateMachine(
            nodeId,
            new EntryAdmission(localClient, b.maxLiveProcedures, new ProcedureCodec(b.registry)));
    this.stateMachine.setAppliedChanges(b.appliedChanges);
    this.clusterId = b.clusterId;
    this.group = ProcedureGroup.of(b.clusterId, b.peers);
    this.view = new MembershipView(nodeId, b.peers, b.join);
    this.security = RaftSecurity.of(b.tls, view);
    this.bindHost = b.bindHost();
    this.insecureExposure = b.tls == null && !BindCheck.isLoopback(bindHost);
    this.registry = b.registry;
    this.executorSettings =
        new LeaderExecutorSettings<>(
            b.registry,
            b.environment,
            b.tuning,
            b.storeDecorator,
            b.relaunchBackoff,
            b.relaunchGiveUp,
            b.unreadyPatience,
            EntryBatcher.Limits.defaults(),
            b.raft.requestTimeout());
    this.raftSettings = b.raft;
    this.clock = b.clock;
    this.peer =
        new RaftPeer(
            nodeId,
            Map.copyOf(b.peers),
            group,
            b.join,
            clusterId,
            b.storageDir,
            raftSettings.requestTimeout(),
            bindHost,
            security);
    this.membership =
        new Membership(
            nodeId, peer, view, stateMachine::appliedIndex, raftSettings.electionTimeoutMax());
    this.removal = new RemovalWatch(nodeId, view, b.removedListeners);
    this.leadership =
        new LeadershipManager<>(
            nodeId,
            new ExecutorLauncher<>(
                nodeId, stateMachine, this::localSubmitter, executorSettings, this::isLeader),
            this::leaderTerm,
            () -> stateMachine.metrics().appliedIndex(),
            why -> LeadershipYield.yieldLeadership(nodeId, peers().keySet(), peer, why),
            this::localSubmitter,
            executorSettings,
            new RoleNotifier(nodeId, b.roleListeners));
    this.metadata =
        new ReplicatedMetadata(
            stateMachine,
            this::localSubmitter,
            this::requireClient,
            nodeId,
            raftSettings.requestTimeout());
    this.operator = new OperatorDesk(nodeId, this::requireCalls, this::division, registry);
    this.readIndexService = new ReadIndexService(nodeId);
  }

  public static <Env> Builder<Env> builder() {
    return new Builder<>();
  }

  /**
   * The Raft group id of the cluster {@code clusterId}: what Ratis' own tools (ratis sh) name the
   * group by, and the name of the group's directory in each member's storage directory.
   */
  public static UUID raftGroupId(String clusterId) {
    return ProcedureGroup.groupId(clusterId).getUuid();
  }

  /** Starts the Raft peer; leadership and recovery follow in the background. */
  public synchronized void start() throws IOException {
    if (peer.server() != null) {
      throw new IllegalStateException("node " + nodeId + " is already started");
    }
    if (insecureExposure) {
      LOG.warn(
          "Node {} listens on {} without TLS (allowInsecure): anyone who reaches the port can vote,"
              + " append to the log and submit. Give it TLS settings (a certificate naming peer {}),"
              + " or bind a loopback address.",
          nodeId,
          bindHost,
          nodeId);
    }
    stateMachine.setListener(leadership);
    stateMachine.setMembershipListener(removal);
    peer.start(raftSettings, stateMachine, readIndexService);
    view.attach(() -> division().map(RaftServer.Division::getRaftConf));
    calls =
        new NodeCalls(
            nodeId,
            peer.server(),
            localClient,
            group,
            registry,
            raftSettings,
            security,
            clock,
            this::isLeader,
            () -> leadership.runningStore().orElse(null),
            executorSettings.batchLimits(),
            stateMachine.changes(),
            stateMachine.table()::get,
            stateMachine::isApplyThread,
            stateMachine.appliedWaits(),
            stateMachine::query);
    readIndexService.answerWith(calls::leaderReadIndex);
  }

  /** Stops the executor (if leading), the Raft peer and the client. Idempotent. */
  @Override
  public void close() {
    removal.closing();
    NodeCalls c;
    synchronized (this) {
      c = calls;
      calls = null;
    }
    if (c != null) {
      c.stopSubmissions();
    }
    leadership.shutdown();
    if (c != null) {
      c.close();
    }
    peer.close();
  }

  public String nodeId() {
    return nodeId;
  }

  /** The id of the cluster this node belongs to (its Raft group id derives from it). */
  public String clusterId() {
    return clusterId;
  }

  /** The address this node's Raft server listens on (its port is its peer address'). */
  public String bindHost() {
    return bindHost;
  }

  /** Whether this node's Raft connections are mutual TLS. */
  public boolean isTls() {
    return security.isTls();
  }

  /**
   * The cluster's members by node id, as of the newest configuration this node applied (at start:
   * the peers it was given, or the configuration in its storage).
   */
  public Map<String, InetSocketAddress> peers() {
    return view.appliedMembers();
  }

  /**
   * The group's membership: its members and their state, and (on the leader) the changes a
   * membership procedure makes.
   */
  public Membership membership() {
    return membership;
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

  /**
   * How long this node has known no leader, as of its last check (once per election timeout); empty
   * while it knows one. After ten (maximum) election timeouts without one, and again every ten, the
   * node logs a warning with its Raft state.
   */
  public Optional<Duration> leaderlessFor() {
    return peer.leaderlessFor();
  }

  /** The running executor's leader context (term = fencing token), if this node leads. */
  public Optional<LeaderContext> leaderContext() {
    return leadership.context();
  }

  /**
   * Linearizable reads this node answered as a follower by the leader's read index (Baton's call
   * between members) since it started.
   */
  public long followerReadCount() {
    FollowerReads r = followerReads();
    return r == null ? 0 : r.answeredCount();
  }

  /**
   * Reads this node tried as a follower by the leader's read index that failed (no leader known,
   * the leader unreachable or refusing) and were read another way (Ratis' own follower read index,
   * then the leader) since it started.
   */
  public long followerReadFallbackCount() {
    FollowerReads r = followerReads();
    return r == null ? 0 : r.failedCount();
  }

  /**
   * Reads this node answered as a follower that had not applied the leader's read index when it
   * came, and so also read through Ratis' follower read index (the first answer wins), since it
   * started.
   */
  public long followerReadBehindCount() {
    FollowerReads r = followerReads();
    return r == null ? 0 : r.behindCount();
  }

  /**
   * Read indexes this node gave as leader to a follower that did not yet know them committed, and
   * so sent that follower the commit index at once rather than at the next heartbeat, since it
   * started.
   */
  public synchronized long readIndexCommitSendCount() {
    return calls == null ? 0 : calls.commitIndexSendCount();
  }

  /** Leaders heard of since start, one per term (the first included; each logged at INFO). */
  public long leaderChanges() {
    return stateMachine.metrics().leaderChanges();
  }

  /**
   * Where this node's recovery as the new leader stands while its role is {@link
   * NodeRole#LEADER_RECOVERING}; empty in any other role.
   */
  public Optional<LeadershipManager.RecoveryProgress> recoveryProgress() {
    return leadership.recoveryProgress();
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

  /** The counters of this node's replicated state machine, for metrics and benchmarks. */
  public StateMachineMetrics metrics() {
    return stateMachine.metrics();
  }

  /** This node's replicated state machine (its table, for this package's tests). */
  ProcedureStateMachine stateMachine() {
    return stateMachine;
  }

  /**
   * Asks this node to take a snapshot of its state machine now (Ratis purges the log behind it);
   * completes with the index of the snapshot (the previous one's if nothing was applied since), or
   * fails with the server's reason. The snapshot is written while the request is outstanding, so it
   * is durable and covers everything this node had applied when it was asked.
   */
  public CompletableFuture<Long> takeSnapshot() {
    return stateMachine
        .snapshots()
        .explicit(
            () ->
                NodeCalls.bounded(peer.takeSnapshot(), "snapshot", raftSettings.requestTimeout()));
  }

  /** The index of the last Raft log entry this node knows to be committed; 0 before it started. */
  public long commitIndex() {
    return division().map(d -> d.getRaftLog().getLastCommittedIndex()).orElse(0L);
  }

  /** Store writes and id reservations rejected by this node's state machine for a stale term. */
  public long rejectedWriteCount() {
    return stateMachine.metrics().rejectedWriteCount();
  }

  /**
   * Submits a new root procedure through the replicated log; completes with its id once the
   * submission is committed. A repeated nonce completes with the first submission's id.
   *
   * <p>On the leader the future completes on the node's reply thread, which also carries its
   * executor's writes: a callback that blocks should be given its own executor ({@code
   * thenApplyAsync(fn, executor)}). It never runs on the Raft thread that applies entries.
   */
  public CompletableFuture<Long> submit(Procedure<Env> proc, NonceKey nonce) {
    return requireCalls().submit(proc, nonce);
  }

  /** Asks the leader's executor to abort a procedure; false if unknown, finished or refused. */
  public CompletableFuture<Boolean> abort(long procId) {
    return operator.abort(procId);
  }

  /**
   * An operator's action on a procedure, as a log entry: recorded in the replicated audit trail
   * (with {@code principal}, {@code reason} and the time now), carried out by the leader's
   * executor, which answers the outcome (refused with the reason when illegal now). Fails with an
   * {@link IllegalArgumentException} when the entry itself is refused (no reason, unknown action).
   *
   * @param recursive for a bypass: the procedure's unfinished descendants too
   */
  public CompletableFuture<AuditEntry> act(
      OperatorAction action, long procId, boolean recursive, String principal, String reason) {
    return operator.act(action, procId, recursive, principal, reason);
  }

  /**
   * Records a flow resume that was carried out (or refused) in the replicated audit trail, as
   * action {@value AuditEntry#FLOW_RESUME} on the flow {@code flowId}, decided with its outcome,
   * with {@code principal}, {@code reason} and the time now. Fails with an {@link
   * IllegalArgumentException} when the entry is refused (no reason, no node).
   *
   * @param node the flow's node resumed
   * @param resumeAction how: {@code RERUN}, {@code MARK_SUCCEEDED} or {@code MARK_FAILED}
   * @param refused whether the resume was refused; {@code outcome} then says why
   */
  public CompletableFuture<AuditEntry> recordResume(
      long flowId,
      String node,
      String resumeAction,
      String principal,
      String reason,
      boolean refused,
      String outcome) {
    return operator.recordResume(
        new OperatorDesk.FlowResume(flowId, node, resumeAction, refused, outcome),
        principal,
        reason);
  }

  /**
   * The state timeline of a procedure from this node's Raft log: every record of it the executor
   * wrote, with the entry's index and term ({@link ProcedureHistory}). Reads this node's log only
   * (committed entries), no round trip.
   *
   * @throws IOException when the log cannot be read, or this node serves no Raft group
   */
  public ProcedureHistory history(long procId) throws IOException {
    return operator.history(procId);
  }

  /** A linearizable read of the audit trail of operator actions, oldest first. */
  public CompletableFuture<List<AuditEntry>> audit() {
    return operator.audit();
  }

  /**
   * A linearizable read of one procedure, answered by this node's own server after a read index
   * round trip to the leader (or by the leader when this node cannot answer in time).
   */
  public CompletableFuture<Optional<ProcedureInfo>> getInfo(long procId) {
    return requireCalls().getInfo(procId);
  }

  /**
   * Waits until the procedure has finished, reading it as {@link #awaitFinished} does (on any
   * node).
   *
   * @param timeout how long to wait in all
   * @return the finished procedure
   * @throws TimeoutException if it has not finished within {@code timeout} (its last state named)
   * @throws IOException if the cluster does not know it, or a read failed
   */
  public ProcedureInfo await(long procId, Duration timeout)
      throws IOException, TimeoutException, InterruptedException {
    Optional<ProcedureInfo> last;
    try {
      last =
          awaitFinished(procId, timeout)
              .get(timeout.plus(raftSettings.requestTimeout()).toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IOException(
          "wait for procedure " + procId + " failed: " + e.getCause().getMessage(), e.getCause());
    }
    ProcedureInfo info =
        last.orElseThrow(
            () -> new IOException("procedure " + procId + " is unknown to the cluster"));
    if (!info.finished()) {
      throw new TimeoutException(
          "procedure " + procId + " did not finish within " + timeout + "; last " + info);
    }
    return info;
  }

  /**
   * The procedure once it has finished, or as it is when {@code timeout} has passed (then not
   * finished), or empty if the cluster does not know it (or deleted it meanwhile). Starts with a
   * linearizable read as {@link #getInfo}; then no more reads go to the cluster while it waits:
   * this node looks at its own table each time it applies a change of the procedure's record, so
   * the answer comes as soon as this node (leader or follower) applied the finish. A record missing
   * from this node's table (which lags when the leader answered the read) is answered by one more
   * linearizable read. Holds no thread while it waits.
   */
  public CompletableFuture<Optional<ProcedureInfo>> awaitFinished(long procId, Duration timeout) {
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("a wait's timeout is 0 or more: " + timeout);
    }
    return requireCalls().awaitFinished(procId, timeout);
  }

  /** A linearizable read of every procedure, answered like {@link #getInfo}. */
  public CompletableFuture<List<ProcedureInfo>> list() {
    return requireCalls().list();
  }

  /**
   * A linearizable read of one page of procedures in id order: those after {@code after} that match
   * every filter given (null, or 0 for {@code parent}: any), at most {@code limit} plus one, which
   * tells that more follow. Only the envelopes of the records scanned are read, so a page costs
   * what it holds and skips, not the whole table.
   */
  public CompletableFuture<List<ProcedureInfo>> page(
      long after,
      int limit,
      String type,
      long parent,
      ProcedureState state,
      ProcedureState notState) {
    ListPage.Builder page = ListPage.newBuilder().setAfter(after).setLimit(limit).setParent(parent);
    if (type != null) {
      page.setType(type);
    }
    if (state != null) {
      page.setState(state.name());
    }
    if (notState != null) {
      page.setNotState(notState.name());
    }
    return requireCalls().page(page.build());
  }

  private synchronized NodeCalls requireCalls() {
    if (calls == null) {
      throw new IllegalStateException("node " + nodeId + " is not started");
    }
    return calls;
  }

  private ProcedureClient requireClient() {
    return requireCalls().client();
  }

  Optional<RaftServer.Division> division() {
    return peer.division();
  }

  /** The term Ratis says this node leads now; empty if it does not lead. */
  private OptionalLong leaderTerm() {
    return division()
        .map(RaftServer.Division::getInfo)
        .filter(info -> info.isLeader())
        .map(info -> OptionalLong.of(info.getCurrentTerm()))
        .orElse(OptionalLong.empty());
  }

  synchronized LocalSubmitter localSubmitter() {
    return calls == null ? null : calls.local();
  }

  /** This node's reads by the leader's read index; null before the node started. */
  synchronized FollowerReads followerReads() {
    return calls == null ? null : calls.followerReads();
  }

  /** The reads waiting for this node to apply an index. */
  AppliedWaits appliedWaits() {
    return stateMachine.appliedWaits();
  }

  ProcedureRegistry registry() {
    return registry;
  }

  /** This node's Ratis server (admin requests: snapshot, leadership transfer). */
  RaftPeer peer() {
    return peer;
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
    private final List<Consumer<NodeRole>> roleListeners = new ArrayList<>();
    private final List<Consumer<String>> removedListeners = new ArrayList<>();
    private boolean join;
    private AppliedChanges appliedChanges;
    private RaftSettings raft = RaftSettings.defaults();
    private LongSupplier clock = System::currentTimeMillis;
    private BiFunction<LeaderContext, ProcedureStore, ProcedureStore> storeDecorator =
        (leader, store) -> store;
    private Duration relaunchBackoff = LeadershipManager.DEFAULT_RELAUNCH_BACKOFF;
    private Duration relaunchGiveUp = LeadershipManager.DEFAULT_RELAUNCH_GIVE_UP;
    private Duration unreadyPatience = LeadershipManager.DEFAULT_UNREADY_PATIENCE;
    private long maxLiveProcedures = DEFAULT_MAX_LIVE_PROCEDURES;
    private String clusterId = DEFAULT_CLUSTER_ID;
    private String bindHost;
    private TlsSettings tls;
    private boolean allowInsecure;

    private Builder() {}

    /**
     * The cluster's id (1 to 64 characters {@code [A-Za-z0-9._-]}; default {@value
     * ProcedureNode#DEFAULT_CLUSTER_ID}). The Raft group id derives from it: every member and
     * client of a cluster must be given the same, and a node given another cluster's id cannot join
     * it (Ratis refuses requests for another group) nor start on its storage directory.
     */
    public Builder<Env> clusterId(String id) {
      this.clusterId = ProcedureGroup.checkClusterId(id);
      return this;
    }

    /**
     * The address (host name or IP literal) this node's Raft server listens on; its port is the one
     * of its own peer address. Default: the host of its own peer address. A wildcard ({@code
     * 0.0.0.0}, {@code ::}) listens on every interface. A non-loopback address needs {@link #tls}
     * or {@link #allowInsecure}.
     */
    public Builder<Env> bindAddress(String host) {
      Objects.requireNonNull(host, "host");
      if (host.isBlank()) {
        throw new IllegalArgumentException("a bind address must not be blank");
      }
      this.bindHost = host;
      return this;
    }

    /**
     * Mutual TLS for every Raft connection of this node: its server (peers, clients and admin calls
     * on one port) and the clients it makes. The certificate must name this node's id as a member
     * ({@link PeerIdentity}) and, as any TLS server's, the host others reach it by; every member
     * must trust the same CA. A caller is allowed what its certificate's identity allows: members
     * take part in Raft (each only as itself), clients read ({@code reader}), also submit and abort
     * ({@code operator}), also call Ratis' admin service ({@code admin}).
     */
    public Builder<Env> tls(TlsSettings settings) {
      this.tls = Objects.requireNonNull(settings, "settings");
      return this;
    }

    /**
     * Lets a node without {@link #tls} listen on a non-loopback address (default false: {@link
     * #build} refuses), where anyone who reaches the port can vote, append and submit. The node
     * logs a warning when it starts. For tests and trusted networks only.
     */
    public Builder<Env> allowInsecure(boolean allow) {
      this.allowInsecure = allow;
      return this;
    }

    private String bindHost() {
      return bindHost != null ? bindHost : peers.get(nodeId).getHostString();
    }

    /**
     * The most unfinished root procedures the cluster holds while this node leads (default {@value
     * ProcedureNode#DEFAULT_MAX_LIVE_PROCEDURES}; 0: no cap). A submission past it fails with
     * {@link LiveProcedureCapException}; one that repeats a known nonce still gets its procedure.
     * The cap is checked when the submission is applied, against the replicated table, with the
     * leader's value at the time it appended the submission, so every member decides alike.
     */
    public Builder<Env> maxLiveProcedures(long cap) {
      if (cap < 0) {
        throw new IllegalArgumentException("maxLiveProcedures is 0 (no cap) or positive: " + cap);
      }
      this.maxLiveProcedures = cap;
      return this;
    }

    /**
     * This node's id (required; no default): its Raft peer id, a key of {@link #peers}, and the
     * name its certificate must carry under {@link #tls}.
     */
    public Builder<Env> nodeId(String id) {
      this.nodeId = id;
      return this;
    }

    /**
     * Every member of the cluster by node id, this node included (required; default none), with the
     * address each is reached at for Raft. Taken as a copy, in its iteration order.
     */
    public Builder<Env> peers(Map<String, InetSocketAddress> peers) {
      this.peers = new LinkedHashMap<>(peers);
      return this;
    }

    /**
     * The directory of this node's Raft log, snapshots and state (required; no default); created if
     * missing. A restarted node given the same directory recovers from it.
     */
    public Builder<Env> storageDir(Path dir) {
      this.storageDir = dir;
      return this;
    }

    /**
     * The procedure types this node can run and decode (required; no default); every member should
     * be given the same.
     */
    public Builder<Env> registry(ProcedureRegistry registry) {
      this.registry = registry;
      return this;
    }

    /**
     * Makes the environment each new leader executor runs with, given its leader context (term and
     * epoch: the fencing token of everything the executor sends out). Required; no default. Called
     * on the node's leadership thread once per executor incarnation; a call that throws counts as a
     * failed launch and is retried like one ({@link #executorRelaunch}).
     */
    public Builder<Env> environment(Function<LeaderContext, Env> environment) {
      this.environment = environment;
      return this;
    }

    /**
     * Worker threads of each leader executor (at least 1; default {@value
     * ProcedureNode#DEFAULT_WORKERS}: steps wait on Raft commits, so concurrency bounds the step
     * rate).
     */
    public Builder<Env> coreWorkers(int n) {
      return executor(b -> b.coreWorkers(n));
    }

    /**
     * Most worker threads of each leader executor, with the temporary ones added while workers are
     * stuck (at least {@link #coreWorkers}; default {@value ProcedureNode#MAX_WORKERS_FACTOR} times
     * the default core workers).
     */
    public Builder<Env> maxWorkers(int n) {
      return executor(b -> b.maxWorkers(n));
    }

    /**
     * How long one step may run before its worker counts as stuck and a temporary worker is added
     * (positive; default {@code ProcedureExecutor}'s, 10 s).
     */
    public Builder<Env> stuckThreshold(Duration d) {
      return executor(b -> b.stuckThreshold(d));
    }

    /**
     * How long finished procedures stay queryable before the leader deletes them from the
     * replicated table (0 or more; default {@code ProcedureExecutor}'s, 10 minutes).
     */
    public Builder<Env> completedRetention(Duration d) {
      return executor(b -> b.completedRetention(d));
    }

    /**
     * Any other executor setting, applied to every leader executor this node builds, after the
     * node's defaults and in the order given; its bounds are the executor builder's, checked when
     * an executor is built. Each call adds a setting.
     */
    public Builder<Env> executor(Consumer<ProcedureExecutor.Builder<Env>> setting) {
      tuning.add(Objects.requireNonNull(setting, "setting"));
      return this;
    }

    /**
     * Calls {@code listener} with this node's new {@link NodeRole} each time it changes: {@link
     * NodeRole#LEADER_RECOVERING} when it becomes leader (and again when its executor failed and is
     * being relaunched), {@link NodeRole#LEADER_RUNNING} once its executor runs, {@link
     * NodeRole#FOLLOWER} when leadership ends or the node closes. Changes arrive in order on one
     * thread of the node's own, never on a Ratis thread; the starting FOLLOWER is not reported. A
     * listener that blocks holds up only the notifications after it; one that throws is logged.
     * Each call adds a listener.
     */
    public Builder<Env> onRoleChange(Consumer<NodeRole> listener) {
      roleListeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * Whether this node joins a running cluster as a new member (default false): its Raft server
     * starts with an empty group and waits for the leader to add it ({@link Membership#add}); its
     * {@link #peers} (the current members and itself) serve only to trust and admit the members
     * until the group's configuration names them. A joined node restarted on its storage takes the
     * configuration from there either way.
     */
    public Builder<Env> join(boolean join) {
      this.join = join;
      return this;
    }

    /**
     * Calls {@code listener} once, with the reason, when this node finds it was removed from the
     * group (a newer configuration no longer names it) or Ratis shut its server down by itself (an
     * election found it outside the group). On a thread of its own; the node does not close itself:
     * a process hosting it should close it and stop. Each call adds a listener.
     */
    public Builder<Env> onRemoved(Consumer<String> listener) {
      removedListeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * Reports every change of the replicated table this node applies, with the index of its log
     * entry, to {@code listener} (see {@link AppliedChanges}: on the apply thread, so it must
     * return at once). One listener; a later call replaces it.
     */
    public Builder<Env> onApplied(AppliedChanges listener) {
      this.appliedChanges = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Every Raft setting at once (default {@link RaftSettings#defaults()}); replaces what {@link
     * #electionTimeouts}, {@link #snapshotEvery} and {@link #requestTimeout} set before it.
     */
    public Builder<Env> raft(RaftSettings settings) {
      this.raft = Objects.requireNonNull(settings, "settings");
      return this;
    }

    /**
     * The randomized election timeout's range (0 &lt; min &lt; max; default {@link
     * RaftSettings#DEFAULT_ELECTION_TIMEOUT_MIN} to {@link
     * RaftSettings#DEFAULT_ELECTION_TIMEOUT_MAX}): how long a follower waits without a leader
     * before it stands; failover takes about one to two minimums. Every member should be given the
     * same.
     */
    public Builder<Env> electionTimeouts(Duration min, Duration max) {
      this.raft = raft.withElectionTimeouts(min, max);
      return this;
    }

    /**
     * Log entries applied between two snapshots of the state machine (positive; default {@value
     * RaftSettings#DEFAULT_SNAPSHOT_EVERY}); the log is purged behind each snapshot.
     */
    public Builder<Env> snapshotEvery(long entries) {
      this.raft = raft.withSnapshotEvery(entries);
      return this;
    }

    /**
     * How long one request to the cluster may take (positive; default {@link
     * RaftSettings#DEFAULT_REQUEST_TIMEOUT}): submissions, reads, snapshots, and an executor's
     * fence.
     */
    public Builder<Env> requestTimeout(Duration timeout) {
      this.raft = raft.withRequestTimeout(timeout);
      return this;
    }

    /**
     * When the leader's executor stops by itself while the node stays leader, a new one is launched
     * in the same term; failed launches are retried after {@code backoff} (doubling), and after
     * {@code giveUpAfter} without a running executor the node hands leadership to another node.
     *
     * @param backoff the pause before the second relaunch of a streak (the first is at once),
     *     doubling up to 2 s; positive; default {@link LeadershipManager#DEFAULT_RELAUNCH_BACKOFF}
     * @param giveUpAfter 0 or more; default {@link LeadershipManager#DEFAULT_RELAUNCH_GIVE_UP}
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

    /**
     * How long a node Ratis elected may go without becoming the ready leader and without applying
     * any entry (its log or its apply is stuck) before it hands leadership to another node; again
     * after each further {@code patience} without progress. While its applied index moves (a long
     * backlog) it keeps waiting.
     *
     * @param patience positive; default {@link LeadershipManager#DEFAULT_UNREADY_PATIENCE}
     */
    public Builder<Env> unreadyLeaderPatience(Duration patience) {
      if (patience.isNegative() || patience.isZero()) {
        throw new IllegalArgumentException(
            "the patience with an unready leader must be positive: " + patience);
      }
      this.unreadyPatience = patience;
      return this;
    }

    /** Wraps each leader executor's store; a test hook (e.g. to inject store failures). */
    Builder<Env> storeDecorator(BiFunction<LeaderContext, ProcedureStore, ProcedureStore> d) {
      this.storeDecorator = Objects.requireNonNull(d, "decorator");
      return this;
    }

    /**
     * The clock of submission times, in epoch milliseconds (default {@link
     * System#currentTimeMillis}); for tests.
     */
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
      BindCheck.check(nodeId, bindHost(), tls, allowInsecure);
      return new ProcedureNode<>(this);
    }
  }
}
