package dev.baton.consensus;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.baton.consensus.proto.AbortPending;
import dev.baton.consensus.proto.ActionResult;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.MetadataEntry;
import dev.baton.consensus.proto.OperatorActionEntry;
import dev.baton.consensus.proto.Query;
import dev.baton.consensus.proto.QueryReply;
import dev.baton.consensus.proto.StoredProcedure;
import dev.baton.procedure.store.StoreContents;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicated procedure state machine, the Ratis side of it: hands each applied log entry to the
 * {@link CommandApplier} (the deterministic part: table, fencing by term and executor epoch), on
 * Ratis' apply thread, and never blocks it; answers read-only queries from the {@link
 * ProcedureTable}; takes and loads snapshots (checksummed files of the table, written off the apply
 * thread by the {@link SnapshotTaker}; a corrupt one is a named error).
 *
 * <p>Leadership callbacks and new submissions are passed to a {@link Listener} (the {@link
 * LeadershipManager}), which must return quickly.
 */
public final class ProcedureStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(ProcedureStateMachine.class);

  /** What the node hears from the state machine; every method must return quickly. */
  interface Listener {
    /**
     * This node became leader (not yet ready) or someone else did; on the node's role-event thread
     * ({@link RoleEventRelay}).
     */
    void leaderChanged(boolean self);

    /**
     * Every entry of earlier terms is applied; on the role-event thread, after the role events
     * before it.
     */
    void leaderReady();

    /** This node stopped being leader (or shuts down); on the node's role-event thread. */
    void notLeader();

    /** A submission was applied as {@code record} at log index {@code index}. */
    void submitted(long index, StoreRecord record);

    /**
     * An abort entry was applied: the executor's coming decision, or null if this node is not the
     * leader (its executor does not decide). Must not wait for the decision.
     */
    CompletableFuture<Boolean> abortRequested(long procId);

    /**
     * An operator action entry was applied at {@code index}: the executor's coming outcome, or null
     * if this node is not the leader. Must not wait for it.
     */
    CompletableFuture<ActionResult> actionRequested(long index, OperatorActionEntry action);
  }

  /** What the node hears about the group's membership; every method must return quickly. */
  interface MembershipListener {
    /** A configuration entry was applied at {@code index} (joint ones too); on the apply thread. */
    void configurationApplied(long index, RaftConfigurationProto conf);

    /**
     * Ratis shut this member's server down by itself (not a close of the node): an election found
     * it outside the group's configuration, or a member told it so.
     */
    void shutDownByRaft();
  }

  private final RecordWatch changes;
  private final ProcedureTable table;
  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final CommandApplier applier;
  private final WriteTimings writeTimings = new WriteTimings();
  private final SnapshotTaker snapshots;
  private final LeaderChanges leaderChanges = new LeaderChanges();
  private final String nodeId;
  private final AbortOutcomes abortOutcomes;
  private final ActionOutcomes actionOutcomes;
  private final EntryAdmission admission;
  private final RoleEventRelay roleEvents;
  private volatile Listener listener;
  private volatile MembershipListener membershipListener;
  private volatile AppliedChanges appliedChanges;

  /** The records the entry being applied changed; on the apply thread only. */
  private final List<AppliedChanges.Change> entryChanges = new ArrayList<>();

  /**
   * @param admission what this node, as leader, checks and writes before it appends an entry
   */
  ProcedureStateMachine(String nodeId, EntryAdmission admission) {
    this.nodeId = nodeId;
    this.changes = new RecordWatch(nodeId);
    this.table = new ProcedureTable(this::recordChanged);
    this.applier = new CommandApplier(table);
    this.snapshots = new SnapshotTaker(storage, this::freeze);
    this.abortOutcomes = new AbortOutcomes(nodeId);
    this.actionOutcomes = new ActionOutcomes(nodeId);
    this.admission = admission;
    this.roleEvents = new RoleEventRelay(nodeId);
  }

  /** The cap on live root procedures this node sets on the submissions it appends as leader. */
  long maxLiveProcedures() {
    return admission.liveCap();
  }

  @Override
  public TransactionContext startTransaction(RaftClientRequest request) {
    return admission.startTransaction(this, request);
  }

  void setListener(Listener listener) {
    this.listener = listener;
  }

  void setMembershipListener(MembershipListener listener) {
    this.membershipListener = listener;
  }

  /** Reports each applied entry's changes of the table to {@code listener} (null: nobody). */
  void setAppliedChanges(AppliedChanges listener) {
    this.appliedChanges = listener;
  }

  /** A record an entry wrote or deleted: wakes its waiters and keeps it for the listener. */
  private void recordChanged(long procId, byte[] data, boolean deleted) {
    changes.changed(procId);
    if (appliedChanges != null) {
      entryChanges.add(new AppliedChanges.Change(procId, data, deleted));
    }
  }

  ProcedureTable table() {
    return table;
  }

  /** Waiters for the next change of a record, woken as entries (or a snapshot) are applied. */
  RecordWatch changes() {
    return changes;
  }

  /**
   * Store writes and id reservations refused because their executor term (or, for store writes,
   * epoch) was stale.
   */
  public long rejectedWriteCount() {
    return applier.rejectedWriteCount();
  }

  /** Executor store batches applied (each one procedure-state update of the executor). */
  public long appliedBatchCount() {
    return applier.appliedBatchCount();
  }

  /** The index of the last log entry applied here (or loaded from a snapshot); -1 if none. */
  public long appliedIndex() {
    TermIndex last = getLastAppliedTermIndex();
    return last == null ? -1 : last.getIndex();
  }

  /** Log entries that carried applied store batches (group commit: far fewer than batches). */
  public long appliedWriteEntryCount() {
    return applier.appliedWriteEntryCount();
  }

  /**
   * Log entries that carried only submissions (group-committed like the store batches): those of a
   * node with no running executor, or sent through a client.
   */
  public long appliedSubmitEntryCount() {
    return applier.appliedSubmitEntryCount();
  }

  /** Submissions applied from store-write entries, which carry the leader's own submissions. */
  public long carriedSubmissionCount() {
    return applier.carriedSubmissionCount();
  }

  /** Leaders this node has heard of, one per term it learned one in ({@link LeaderChanges}). */
  public long leaderChanges() {
    return leaderChanges.count();
  }

  /** Where the store writes of this node (while it leads) spend their time. */
  public WriteTimings writeTimings() {
    return writeTimings;
  }

  /** A consistent copy of the table and the index of the last entry it includes. */
  Loaded load() {
    synchronized (table) {
      return new Loaded(table.contents(), getLastAppliedTermIndex().getIndex());
    }
  }

  record Loaded(StoreContents contents, long appliedIndex) {}

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    super.initialize(server, groupId, raftStorage);
    storage.init(raftStorage);
    getLifeCycle().startAndTransition(() -> loadLatestSnapshot(storage.getLatestSnapshot()));
  }

  /**
   * Ratis pauses the state machine before it replaces the state machine directory with a snapshot
   * installed from the leader, and checks that the life cycle says PAUSED (else the apply thread
   * fails and the server shuts down). A background snapshot write of an older image is cancelled
   * and awaited first, so it cannot land in the new directory or become the latest; no new one
   * starts while paused. applyTransaction is synchronous, so no apply runs that the installation
   * must wait for.
   */
  @Override
  public void pause() {
    if (getLifeCycleState() == LifeCycle.State.RUNNING) {
      getLifeCycle().transition(LifeCycle.State.PAUSING);
      snapshots.cancelInFlight();
      getLifeCycle().transition(LifeCycle.State.PAUSED);
    }
  }

  /** Loads the newest snapshot on disk (one just installed from the leader) and runs again. */
  @Override
  public void reinitialize() throws IOException {
    SingleFileSnapshotInfo installed = storage.loadLatestSnapshot();
    loadLatestSnapshot(installed);
    LOG.info(
        "Loaded the snapshot installed from the leader: {}",
        installed == null ? "none" : installed.getTermIndex());
    if (getLifeCycleState() == LifeCycle.State.PAUSED) {
      getLifeCycle().transition(LifeCycle.State.STARTING);
      getLifeCycle().transition(LifeCycle.State.RUNNING);
    }
  }

  private void loadLatestSnapshot(SingleFileSnapshotInfo snapshot) throws IOException {
    synchronized (table) {
      if (snapshot == null) {
        table.clear();
      } else {
        table.loadSnapshot(snapshot.getFile().getPath());
        setLastAppliedTermIndex(snapshot.getTermIndex());
      }
    }
    changes.changedAll();
    AppliedChanges feed = appliedChanges;
    if (feed != null) {
      feed.replaced(snapshot == null ? 0 : snapshot.getIndex());
    }
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return storage;
  }

  /**
   * Called by Ratis on its apply thread; writes in the background and returns the index of a
   * snapshot already durable, or -1 (see {@link SnapshotTaker}).
   */
  @Override
  public long takeSnapshot() throws IOException {
    return snapshots.take(() -> getLifeCycleState() == LifeCycle.State.RUNNING);
  }

  private TableImage freeze() {
    synchronized (table) {
      TermIndex last = getLastAppliedTermIndex();
      if (last == null || last.getIndex() < 0) {
        return null;
      }
      return table.freeze(last);
    }
  }

  /** How long each snapshot held Ratis' apply thread. */
  public LatencyHistogram snapshotApplyBlocking() {
    return snapshots.applyThreadBlocked();
  }

  /** How long each background snapshot write took (off the apply thread). */
  public LatencyHistogram snapshotWriteTimes() {
    return snapshots.writer().writeTimes();
  }

  /** The snapshot machinery (explicit requests, the test hook of the writer). */
  SnapshotTaker snapshots() {
    return snapshots;
  }

  @Override
  public void close() throws IOException {
    roleEvents.shutdown();
    snapshots.close();
    super.close();
  }

  /**
   * An entry's command from one copy of its bytes, which the batches and submissions it holds alias
   * (parsing a read-only buffer would copy the entry, then every field of it again).
   */
  static Command parseCommand(org.apache.ratis.thirdparty.com.google.protobuf.ByteString data)
      throws IOException {
    // a wrapped array reads as immutable, which aliasing needs
    com.google.protobuf.CodedInputStream in =
        com.google.protobuf.UnsafeByteOperations.unsafeWrap(data.toByteArray()).newCodedInput();
    in.enableAliasing(true);
    return Command.parseFrom(in);
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    long term = entry.getTerm();
    long index = entry.getIndex();
    org.apache.ratis.thirdparty.com.google.protobuf.ByteString data =
        entry.getStateMachineLogEntry().getLogData();
    CommandReply reply;
    List<StoreRecord> submitted;
    long abortId;
    OperatorActionEntry action;
    synchronized (table) {
      Command command;
      try {
        command = parseCommand(data);
      } catch (IOException e) {
        command = null;
      }
      long applyStart = System.nanoTime();
      CommandApplier.Outcome outcome = applier.apply(command, term, index);
      if (command != null && command.getKindCase() == Command.KindCase.WRITE) {
        writeTimings.applied().recordNanos(System.nanoTime() - applyStart);
      }
      reply = outcome.reply();
      submitted = outcome.submitted();
      abortId = outcome.abortId();
      action = outcome.action();
      updateLastAppliedTermIndex(term, index);
    }
    reportChanges(index, submitted);
    Listener l = listener;
    if (l != null) {
      for (StoreRecord r : submitted) {
        l.submitted(index, r);
      }
    }
    if (reply == null && action != null) {
      // an operator action: the outcome is read apart (ActionOutcomes); this apply completes now
      CompletableFuture<ActionResult> decision =
          l == null ? null : l.actionRequested(index, action);
      if (decision != null) {
        actionOutcomes.pending(index, decision);
      }
    } else if (reply == null) {
      // an abort: the decision is read apart (AbortOutcomes); this apply completes now
      CompletableFuture<Boolean> decision = l == null ? null : l.abortRequested(abortId);
      if (decision != null) {
        abortOutcomes.pending(index, decision);
      }
    }
    if (reply == null) {
      reply =
          CommandReply.newBuilder()
              .setAbortPending(AbortPending.newBuilder().setIndex(index).setNode(nodeId))
              .build();
    }
    return CompletableFuture.completedFuture(toMessage(reply));
  }

  /** Hands entry {@code index}'s changes, then its new procedures, to the listener. */
  private void reportChanges(long index, List<StoreRecord> submitted) {
    AppliedChanges feed = appliedChanges;
    if (feed == null || (entryChanges.isEmpty() && submitted.isEmpty())) {
      entryChanges.clear();
      return;
    }
    List<AppliedChanges.Change> all = new ArrayList<>(entryChanges.size() + submitted.size());
    all.addAll(entryChanges);
    entryChanges.clear();
    for (StoreRecord r : submitted) {
      all.add(new AppliedChanges.Change(r.procId(), r.data(), false));
    }
    try {
      feed.applied(index, all);
    } catch (RuntimeException e) {
      LOG.warn("The listener of applied changes failed on entry {}", index, e);
    }
  }

  @Override
  public CompletableFuture<Message> query(Message request) {
    Query query;
    try {
      query = Query.parseFrom(request.getContent().asReadOnlyByteBuffer());
    } catch (InvalidProtocolBufferException e) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("not a procedure query: " + e.getMessage()));
    }
    if (query.getKindCase() == Query.KindCase.ABORT_OUTCOME) {
      return abortOutcomes.reply(query.getAbortOutcome());
    }
    if (query.getKindCase() == Query.KindCase.ACTION_OUTCOME) {
      return actionOutcomes.reply(query.getActionOutcome());
    }
    QueryReply.Builder reply = QueryReply.newBuilder();
    synchronized (table) {
      if (query.getKindCase() == Query.KindCase.AUDIT) {
        reply.addAllAudit(table.audit());
      } else if (query.getKindCase() == Query.KindCase.METADATA_PREFIX) {
        for (Map.Entry<String, byte[]> e : table.metadata(query.getMetadataPrefix()).entrySet()) {
          reply.addMetadata(
              MetadataEntry.newBuilder()
                  .setKey(e.getKey())
                  .setValue(com.google.protobuf.UnsafeByteOperations.unsafeWrap(e.getValue())));
        }
      } else if (query.getKindCase() == Query.KindCase.GET) {
        byte[] data = table.get(query.getGet());
        if (data != null) {
          reply.addProcedures(stored(query.getGet(), data));
        }
      } else if (query.getKindCase() == Query.KindCase.LIST_PAGE) {
        for (Map.Entry<Long, byte[]> e : table.page(query.getListPage()).entrySet()) {
          reply.addProcedures(stored(e.getKey(), e.getValue()));
        }
      } else {
        for (Map.Entry<Long, byte[]> e : table.copy().entrySet()) {
          reply.addProcedures(stored(e.getKey(), e.getValue()));
        }
      }
    }
    return CompletableFuture.completedFuture(
        Message.valueOf(UnsafeByteOperations.unsafeWrap(reply.build().toByteArray())));
  }

  private static StoredProcedure stored(long procId, byte[] data) {
    return StoredProcedure.newBuilder()
        .setProcId(procId)
        .setData(com.google.protobuf.UnsafeByteOperations.unsafeWrap(data))
        .build();
  }

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId newLeader) {
    leaderChanges.observed(
        member.getPeerId().toString(),
        newLeader == null ? null : newLeader.toString(),
        currentTerm(member));
    Listener l = listener;
    if (l != null) {
      boolean self = member.getPeerId().equals(newLeader);
      roleEvents.relay("leader changed to " + newLeader, () -> l.leaderChanged(self));
    }
  }

  /** The term {@code member} is in now, or -1 if its server is not reachable (closing). */
  private long currentTerm(RaftGroupMemberId member) {
    RaftServer server = getServer().getNow(null);
    if (server == null) {
      return -1;
    }
    try {
      return server.getDivision(member.getGroupId()).getInfo().getCurrentTerm();
    } catch (IOException e) {
      return -1;
    }
  }

  @Override
  public void notifyLeaderReady() {
    Listener l = listener;
    if (l != null) {
      roleEvents.relay("leader ready", l::leaderReady);
    }
  }

  @Override
  public void notifyNotLeader(Collection<TransactionContext> pending) {
    Listener l = listener;
    if (l != null) {
      roleEvents.relay("not leader", l::notLeader);
    }
  }

  @Override
  public void notifyServerShutdown(
      org.apache.ratis.proto.RaftProtos.RoleInfoProto roleInfo, boolean allServer) {
    Listener l = listener;
    if (l != null) {
      roleEvents.relay("server shut down", l::notLeader);
    }
    MembershipListener m = membershipListener;
    if (!allServer && m != null) {
      m.shutDownByRaft();
    }
  }

  @Override
  public void notifyConfigurationChanged(long term, long index, RaftConfigurationProto conf) {
    MembershipListener m = membershipListener;
    if (m != null) {
      m.configurationApplied(index, conf);
    }
  }

  static Message toMessage(CommandReply reply) {
    return Message.valueOf(UnsafeByteOperations.unsafeWrap(reply.toByteArray()));
  }
}
