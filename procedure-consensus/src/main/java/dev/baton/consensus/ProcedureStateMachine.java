package dev.baton.consensus;

import dev.baton.consensus.proto.AbortPending;
import dev.baton.consensus.proto.ActionResult;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.OperatorActionEntry;
import dev.baton.procedure.store.RecordParts;
import dev.baton.procedure.store.StoreContents;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
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
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicated procedure state machine, the Ratis adapter of it: hands each applied log entry to
 * the {@link CommandApplier} (the deterministic part: table, fencing by term and executor epoch),
 * on Ratis' apply thread, and never blocks it. Its other roles are classes of their own: read-only
 * queries ({@link ProcedureQueries}), snapshots and the pause around their installation ({@link
 * SnapshotControl}), counters ({@link StateMachineMetrics}).
 *
 * <p>Leadership callbacks and new submissions are passed to a {@link Listener} (the {@link
 * LeadershipManager}), which must return quickly.
 */
final class ProcedureStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(ProcedureStateMachine.class);

  /** What the node hears from the state machine; every method must return quickly. */
  interface Listener {
    /**
     * This node became leader (not yet ready) or someone else did; on the node's role-event thread
     * ({@link #roleEvents}).
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
  private final CommandApplier applier;
  private final WriteTimings writeTimings = new WriteTimings();
  private final SnapshotControl snapshots;
  private final LeaderChanges leaderChanges = new LeaderChanges();
  private final String nodeId;
  private final AbortOutcomes abortOutcomes;
  private final ActionOutcomes actionOutcomes;
  private final ProcedureQueries queries;
  private final AppliedWaits appliedWaits = new AppliedWaits();

  /** The thread that applied the latest entry; null before the first ({@link #isApplyThread}). */
  private volatile Thread applyThread;

  private final StateMachineMetrics metrics;
  private final EntryAdmission admission;

  /**
   * Carries Ratis' role callbacks (leader changed, leader ready, not leader, server shut down) to
   * the listener in the order Ratis made them. Ratis makes these callbacks while it holds its
   * server's lock, the one that answers vote requests and appends entries: a callback that waited
   * there, even on a lock of the node held by a thread stopping an executor, would keep this member
   * from voting or following, and with one member down the group could elect no leader meanwhile.
   * So a callback only queues the event. Leader ready goes the same way, so a "not leader" of an
   * old term never overtakes the ready of a new one.
   */
  private final OrderedDelivery roleEvents;

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
    this.snapshots =
        new SnapshotControl(
            table,
            getLifeCycle(),
            this::getLastAppliedTermIndex,
            last -> setLastAppliedTermIndex(last),
            this::replaced);
    this.abortOutcomes = new AbortOutcomes(nodeId);
    this.actionOutcomes = new ActionOutcomes(nodeId);
    this.admission = admission;
    this.roleEvents = new OrderedDelivery(nodeId, "role-events");
    this.queries = new ProcedureQueries(table, abortOutcomes, actionOutcomes, this::appliedIndex);
    this.metrics =
        new StateMachineMetrics(
            applier,
            leaderChanges,
            writeTimings,
            snapshots.taker(),
            this::appliedIndex,
            () -> {
              var latest = getLatestSnapshot();
              return latest == null ? -1 : latest.getIndex();
            });
  }

  /** The counters of this state machine. */
  StateMachineMetrics metrics() {
    return metrics;
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
  private void recordChanged(long procId, byte[] data, RecordParts parts, boolean deleted) {
    changes.changed(procId);
    if (appliedChanges != null) {
      entryChanges.add(new AppliedChanges.Change(procId, data, parts, deleted));
    }
  }

  ProcedureTable table() {
    return table;
  }

  /** Waiters for the next change of a record, woken as entries (or a snapshot) are applied. */
  RecordWatch changes() {
    return changes;
  }

  /** The index of the last log entry applied here (or loaded from a snapshot); -1 if none. */
  long appliedIndex() {
    TermIndex last = getLastAppliedTermIndex();
    return last == null ? -1 : last.getIndex();
  }

  /** Reads waiting for this node to apply a log index. */
  AppliedWaits appliedWaits() {
    return appliedWaits;
  }

  @Override
  protected boolean updateLastAppliedTermIndex(TermIndex applied) {
    boolean moved = super.updateLastAppliedTermIndex(applied);
    reportApplied(applied);
    return moved;
  }

  @Override
  protected void setLastAppliedTermIndex(TermIndex applied) {
    super.setLastAppliedTermIndex(applied);
    reportApplied(applied);
  }

  /**
   * Wakes the reads waiting for {@code applied}; null-safe for Ratis' call before this is built.
   */
  private void reportApplied(TermIndex applied) {
    AppliedWaits waits = appliedWaits;
    if (waits != null && applied != null) {
      waits.reached(applied.getIndex());
    }
  }

  /** Where the store writes of this node (while it leads) spend their time. */
  WriteTimings writeTimings() {
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
    snapshots.initialize(raftStorage);
    LOG.info(
        "Node {} starts from applied index {}: the log after it is applied again",
        nodeId,
        appliedIndex());
  }

  /** See {@link SnapshotControl#pause}. */
  @Override
  public void pause() {
    snapshots.pause();
  }

  /** Loads the newest snapshot on disk (one just installed from the leader) and runs again. */
  @Override
  public void reinitialize() throws IOException {
    snapshots.reinitialize();
  }

  /** The table was replaced by a snapshot: wakes every waiter and tells the listener. */
  private void replaced(long snapshotIndex) {
    changes.changedAll();
    AppliedChanges feed = appliedChanges;
    if (feed != null) {
      feed.replaced(snapshotIndex);
    }
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return snapshots.storage();
  }

  @Override
  public long takeSnapshot() throws IOException {
    return snapshots.take();
  }

  /** The snapshot machinery (explicit requests, the test hook of the writer). */
  SnapshotTaker snapshots() {
    return snapshots.taker();
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

  /**
   * Whether the calling thread is the one Ratis applies entries on (its state machine updater):
   * Ratis also completes the reads that waited for an index there, right after applying it.
   */
  boolean isApplyThread() {
    return Thread.currentThread() == applyThread;
  }

  private void recordApplyThread() {
    Thread current = Thread.currentThread();
    if (applyThread != current) {
      applyThread = current;
    }
  }

  @Override
  public void notifyTermIndexUpdated(long term, long index) {
    recordApplyThread();
    super.notifyTermIndexUpdated(term, index);
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    recordApplyThread();
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
    return queries.answer(request);
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
      roleEvents.deliver("leader changed to " + newLeader, () -> l.leaderChanged(self));
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
      roleEvents.deliver("leader ready", l::leaderReady);
    }
  }

  @Override
  public void notifyNotLeader(Collection<TransactionContext> pending) {
    Listener l = listener;
    if (l != null) {
      roleEvents.deliver("not leader", l::notLeader);
    }
  }

  @Override
  public void notifyServerShutdown(
      org.apache.ratis.proto.RaftProtos.RoleInfoProto roleInfo, boolean allServer) {
    Listener l = listener;
    if (l != null) {
      roleEvents.deliver("server shut down", l::notLeader);
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
