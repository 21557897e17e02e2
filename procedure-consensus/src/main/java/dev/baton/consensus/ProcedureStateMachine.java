package dev.baton.consensus;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.MetadataEntry;
import dev.baton.consensus.proto.MetadataWrite;
import dev.baton.consensus.proto.Query;
import dev.baton.consensus.proto.QueryReply;
import dev.baton.consensus.proto.StoreWrite;
import dev.baton.consensus.proto.StoredProcedure;
import dev.baton.consensus.proto.SubmitReply;
import dev.baton.consensus.proto.SubmitResult;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureCodecException;
import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.proto.StoreBatchProto;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreContents;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicated procedure state machine: applies log entries to a {@link ProcedureTable},
 * deterministically, on Ratis' apply thread, and never blocks it. Store writes are fenced by term:
 * a batch whose executor term differs from its entry's term changes nothing. Snapshots are
 * checksummed files of the table; a corrupt one is a named error.
 *
 * <p>Leadership callbacks and new submissions are passed to a {@link Listener} (the {@link
 * ProcedureNode}), which must return quickly.
 */
public final class ProcedureStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(ProcedureStateMachine.class);

  /** What the node hears from the state machine; every method must return quickly. */
  interface Listener {
    /** This node became leader (not yet ready) or someone else did; on Ratis' election thread. */
    void leaderChanged(boolean self);

    /** Every entry of earlier terms is applied; on the apply thread. */
    void leaderReady();

    /** This node stopped being leader (or shuts down). */
    void notLeader();

    /** A submission was applied as {@code record} at log index {@code index}. */
    void submitted(long index, StoreRecord record);

    /** An abort entry was applied; the reply goes to the requester (on the leader). */
    CompletableFuture<Boolean> abortRequested(long procId);
  }

  private final ProcedureTable table = new ProcedureTable();
  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final AtomicLong rejectedWrites = new AtomicLong();
  private final AtomicLong appliedBatches = new AtomicLong();
  private final AtomicLong appliedWriteEntries = new AtomicLong();
  private final WriteTimings writeTimings = new WriteTimings();
  private volatile Listener listener;

  void setListener(Listener listener) {
    this.listener = listener;
  }

  ProcedureTable table() {
    return table;
  }

  /** Store writes and id reservations refused because their executor term was stale. */
  public long rejectedWriteCount() {
    return rejectedWrites.get();
  }

  /** Executor store batches applied (each one procedure-state update of the executor). */
  public long appliedBatchCount() {
    return appliedBatches.get();
  }

  /** Log entries that carried applied store batches (group commit: far fewer than batches). */
  /** The index of the last log entry applied here (or loaded from a snapshot); -1 if none. */
  public long appliedIndex() {
    TermIndex last = getLastAppliedTermIndex();
    return last == null ? -1 : last.getIndex();
  }

  public long appliedWriteEntryCount() {
    return appliedWriteEntries.get();
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
   * Ratis pauses the state machine before it loads a snapshot installed from the leader, and checks
   * that the life cycle says PAUSED (else the apply thread fails and the server shuts down).
   * Nothing else to do: applyTransaction is synchronous, so no apply runs that the installation
   * must wait for.
   */
  @Override
  public void pause() {
    if (getLifeCycleState() == LifeCycle.State.RUNNING) {
      getLifeCycle().transition(LifeCycle.State.PAUSING);
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
        return;
      }
      table.loadSnapshot(snapshot.getFile().getPath());
      setLastAppliedTermIndex(snapshot.getTermIndex());
    }
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  public long takeSnapshot() throws IOException {
    TermIndex last;
    Path file;
    synchronized (table) {
      last = getLastAppliedTermIndex();
      if (last == null || last.getIndex() < 0) {
        return -1;
      }
      file = storage.getSnapshotFile(last.getTerm(), last.getIndex()).toPath();
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      try (OutputStream out = Files.newOutputStream(tmp)) {
        table.writeSnapshot(out);
      }
      try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        channel.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
    MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file.toFile());
    storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file, md5), last));
    LOG.info("Took procedure snapshot {} at {}", file.getFileName(), last);
    return last.getIndex();
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    long term = entry.getTerm();
    long index = entry.getIndex();
    org.apache.ratis.thirdparty.com.google.protobuf.ByteString data =
        entry.getStateMachineLogEntry().getLogData();
    CommandReply reply;
    List<StoreRecord> submitted = new ArrayList<>();
    long abortId = 0;
    synchronized (table) {
      Command command;
      try {
        command = Command.parseFrom(data.asReadOnlyByteBuffer());
      } catch (InvalidProtocolBufferException e) {
        command = null;
      }
      if (command == null) {
        reply = rejected("entry " + index + " is not a procedure command");
      } else {
        switch (command.getKindCase()) {
          case WRITE -> {
            long start = System.nanoTime();
            reply = applyWrite(command.getWrite(), term, index);
            writeTimings.applied().recordNanos(System.nanoTime() - start);
          }
          case SUBMIT -> {
            SubmitReply.Builder results = SubmitReply.newBuilder();
            for (ByteString envelope : command.getSubmit().getEnvelopesList()) {
              Submission result = applySubmit(envelope.toByteArray(), index);
              results.addResults(result.result());
              if (result.created() != null) {
                submitted.add(result.created());
              }
            }
            reply = CommandReply.newBuilder().setSubmitted(results).build();
          }
          case RESERVE -> {
            if (command.getReserve().getTerm() != term) {
              reply = fenced("an id reservation", command.getReserve().getTerm(), term, index);
            } else if (command.getReserve().getCount() < 1) {
              reply =
                  rejected(
                      "entry " + index + " reserves " + command.getReserve().getCount() + " ids");
            } else {
              reply =
                  CommandReply.newBuilder()
                      .setFirstId(table.reserve(command.getReserve().getCount()))
                      .build();
            }
          }
          case METADATA -> reply = applyMetadata(command.getMetadata(), term, index);
          case ABORT -> {
            abortId = command.getAbort().getProcId();
            reply = null;
          }
          default -> reply = rejected("entry " + index + " holds an unknown command");
        }
      }
      updateLastAppliedTermIndex(term, index);
    }
    Listener l = listener;
    if (l != null) {
      for (StoreRecord r : submitted) {
        l.submitted(index, r);
      }
    }
    if (reply == null) {
      CompletableFuture<Boolean> aborted =
          l == null ? CompletableFuture.completedFuture(false) : l.abortRequested(abortId);
      return aborted.thenApply(a -> toMessage(CommandReply.newBuilder().setAborted(a).build()));
    }
    return CompletableFuture.completedFuture(toMessage(reply));
  }

  /**
   * Refuses an executor's write (store batches or an id reservation) stamped with another term than
   * the entry carrying it: it comes from an executor of an earlier leadership.
   */
  private CommandReply fenced(String what, long executorTerm, long term, long index) {
    rejectedWrites.incrementAndGet();
    LOG.warn(
        "Rejected {} of executor term {} carried by entry {} of term {}: stale executor",
        what,
        executorTerm,
        index,
        term);
    return rejected(
        "stale executor term " + executorTerm + ": the entry was committed in term " + term);
  }

  private CommandReply applyWrite(StoreWrite write, long term, long index) {
    if (write.getTerm() != term) {
      return fenced("a store write", write.getTerm(), term, index);
    }
    StoreBatch[] batches = new StoreBatch[write.getBatchesCount()];
    try {
      for (int i = 0; i < batches.length; i++) {
        batches[i] = StoreBatch.fromProto(StoreBatchProto.parseFrom(write.getBatches(i)));
      }
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      return rejected("entry " + index + " holds an unreadable store batch: " + e.getMessage());
    }
    for (StoreBatch b : batches) {
      table.apply(b);
    }
    appliedBatches.addAndGet(batches.length);
    appliedWriteEntries.incrementAndGet();
    return CommandReply.newBuilder().setWritten(true).build();
  }

  private CommandReply applyMetadata(MetadataWrite write, long term, long index) {
    if (write.getTerm() != term) {
      return fenced("a metadata write", write.getTerm(), term, index);
    }
    Map<String, byte[]> puts = new java.util.HashMap<>();
    for (MetadataEntry e : write.getPutsList()) {
      puts.put(e.getKey(), e.getValue().toByteArray());
    }
    table.applyMetadata(puts, write.getDeletesList());
    return CommandReply.newBuilder().setWritten(true).build();
  }

  /** The result of one submission, and the record it created (null for a repeated nonce). */
  private record Submission(SubmitResult result, StoreRecord created) {}

  private Submission applySubmit(byte[] envelope, long index) {
    try {
      ProcedureEnvelope env = ProcedureCodec.parseEnvelope(0, envelope);
      StoreRecord created = table.submit(env, envelope);
      long procId =
          created != null ? created.procId() : table.procIdOf(ProcedureTable.nonceOf(env));
      return new Submission(SubmitResult.newBuilder().setProcId(procId).build(), created);
    } catch (ProcedureCodecException e) {
      return new Submission(
          SubmitResult.newBuilder()
              .setRejected("submission in entry " + index + " is not valid: " + e.getMessage())
              .build(),
          null);
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
    QueryReply.Builder reply = QueryReply.newBuilder();
    synchronized (table) {
      if (query.getKindCase() == Query.KindCase.METADATA_PREFIX) {
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
    Listener l = listener;
    if (l != null) {
      l.leaderChanged(member.getPeerId().equals(newLeader));
    }
  }

  @Override
  public void notifyLeaderReady() {
    Listener l = listener;
    if (l != null) {
      l.leaderReady();
    }
  }

  @Override
  public void notifyNotLeader(Collection<TransactionContext> pending) {
    Listener l = listener;
    if (l != null) {
      l.notLeader();
    }
  }

  @Override
  public void notifyServerShutdown(
      org.apache.ratis.proto.RaftProtos.RoleInfoProto roleInfo, boolean allServer) {
    Listener l = listener;
    if (l != null) {
      l.notLeader();
    }
  }

  static Message toMessage(CommandReply reply) {
    return Message.valueOf(UnsafeByteOperations.unsafeWrap(reply.toByteArray()));
  }

  private static CommandReply rejected(String why) {
    return CommandReply.newBuilder().setRejected(why).build();
  }
}
