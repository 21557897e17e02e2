package dev.baton.consensus;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.baton.consensus.proto.ActionResult;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.MetadataEntry;
import dev.baton.consensus.proto.MetadataWrite;
import dev.baton.consensus.proto.OperatorActionEntry;
import dev.baton.consensus.proto.StoreWrite;
import dev.baton.consensus.proto.SubmitReply;
import dev.baton.consensus.proto.SubmitResult;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.OperatorAction;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureCodecException;
import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.proto.StoreBatchProto;
import dev.baton.procedure.proto.StoreRecordProto;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deterministic core of the {@link ProcedureStateMachine}: applies one log entry's command to
 * the {@link ProcedureTable} and says what to answer, with no threads, clocks or Ratis types. Every
 * node applies the same entries with the same outcome.
 *
 * <p>Fencing: a store write, metadata write, id reservation or fence counts only in the term its
 * executor was built for (the term of the entry carrying it); a store write also only in the
 * executor epoch the latest fence of its term opened, and so does a metadata write. The caller
 * holds the table's lock.
 */
final class CommandApplier {
  private static final Logger LOG = LoggerFactory.getLogger(CommandApplier.class);

  /**
   * The log entry format this code applies, in {@code Command.format_version} (0, absent, is format
   * 1, the only one so far). A newer entry is refused like an unreadable one: answered with an
   * error naming its version, logged, applied nowhere on this node; the node stays up.
   */
  static final int LOG_FORMAT_VERSION = 1;

  /**
   * What applying one entry did.
   *
   * @param reply the answer to the entry's requester; null for an abort (the leader's executor
   *     decides it, and the state machine answers where to read the decision: {@link
   *     AbortOutcomes})
   * @param submitted procedures the entry created (new roots), in order
   * @param abortId the procedure an abort entry names; 0 otherwise
   * @param action an operator action entry the leader's executor carries out (recorded in the audit
   *     trail; its reply is null like an abort's); null otherwise
   */
  record Outcome(
      CommandReply reply, List<StoreRecord> submitted, long abortId, OperatorActionEntry action) {}

  private final ProcedureTable table;
  private final AtomicLong rejectedWrites = new AtomicLong();
  private final AtomicLong appliedBatches = new AtomicLong();
  private final AtomicLong appliedWriteEntries = new AtomicLong();
  private final AtomicLong appliedSubmitEntries = new AtomicLong();
  private final AtomicLong carriedSubmissions = new AtomicLong();

  CommandApplier(ProcedureTable table) {
    this.table = table;
  }

  long rejectedWriteCount() {
    return rejectedWrites.get();
  }

  long appliedBatchCount() {
    return appliedBatches.get();
  }

  long appliedWriteEntryCount() {
    return appliedWriteEntries.get();
  }

  long appliedSubmitEntryCount() {
    return appliedSubmitEntries.get();
  }

  /** Submissions applied from store-write entries that carried them (not from submit entries). */
  long carriedSubmissionCount() {
    return carriedSubmissions.get();
  }

  /** Applies a command ({@code null}: the entry did not parse) of entry {@code index}. */
  Outcome apply(Command command, long term, long index) {
    CommandReply reply;
    List<StoreRecord> submitted = new ArrayList<>();
    long abortId = 0;
    OperatorActionEntry action = null;
    if (command == null) {
      reply = rejected("entry " + index + " is not a procedure command");
    } else if (command.getFormatVersion() > LOG_FORMAT_VERSION) {
      String why =
          "entry "
              + index
              + " has log format version "
              + command.getFormatVersion()
              + ", newer than this node applies (up to "
              + LOG_FORMAT_VERSION
              + "): upgrade every member before any writes the newer format";
      LOG.error("{}; the entry is refused, not applied", why);
      reply = rejected(why);
    } else {
      switch (command.getKindCase()) {
        case WRITE -> {
          StoreWrite write = command.getWrite();
          // an entry that carries only submissions writes nothing to fence or count
          reply =
              write.getBatchesCount() > 0
                  ? applyWrite(write, term, index)
                  : CommandReply.newBuilder().setWritten(true).build();
          if (write.getEnvelopesCount() > 0) {
            carriedSubmissions.addAndGet(write.getEnvelopesCount());
            reply =
                reply.toBuilder()
                    .setCarried(
                        applySubmits(
                            write.getEnvelopesList(), write.getLiveCap(), index, submitted))
                    .build();
          }
        }
        case SUBMIT -> {
          appliedSubmitEntries.incrementAndGet();
          reply =
              CommandReply.newBuilder()
                  .setSubmitted(
                      applySubmits(
                          command.getSubmit().getEnvelopesList(),
                          command.getSubmit().getLiveCap(),
                          index,
                          submitted))
                  .build();
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
        case FENCE -> reply = applyFence(command.getFence().getTerm(), term, index);
        case ABORT -> {
          abortId = command.getAbort().getProcId();
          reply = null; // the leader's executor answers
        }
        case ACTION -> {
          String bad = invalidAction(command.getAction());
          if (bad != null) {
            reply = rejected("operator action in entry " + index + " refused: " + bad);
          } else if (command.getAction().getDecided()) {
            table.actionRequested(index, command.getAction());
            table.actionDecided(
                ActionResult.newBuilder()
                    .setIndex(index)
                    .setRefused(command.getAction().getRefused())
                    .setOutcome(command.getAction().getOutcome())
                    .build());
            reply = CommandReply.newBuilder().setRecorded(index).build();
          } else {
            action = command.getAction();
            table.actionRequested(index, action);
            reply = null; // the leader's executor answers
          }
        }
        case ACTION_RESULT ->
            reply =
                CommandReply.newBuilder()
                    .setWritten(table.actionDecided(command.getActionResult()))
                    .build();
        default -> reply = rejected("entry " + index + " holds an unknown command");
      }
    }
    return new Outcome(reply, submitted, abortId, action);
  }

  /** Why an operator action entry cannot be carried out whatever the procedure's state, or null. */
  private static String invalidAction(OperatorActionEntry a) {
    if (a.getDecided() || AuditEntry.FLOW_RESUME.equals(a.getAction())) {
      if (!AuditEntry.FLOW_RESUME.equals(a.getAction()) || !a.getDecided()) {
        return "only a flow resume ('"
            + AuditEntry.FLOW_RESUME
            + "') is recorded decided, and it always is; got '"
            + a.getAction()
            + "', decided "
            + a.getDecided();
      }
      if (a.getFlowNode().isBlank()) {
        return "a flow resume names the flow's node";
      }
    } else if (OperatorAction.ofLabel(a.getAction()).isEmpty()) {
      return "unknown action '" + a.getAction() + "'";
    }
    if (a.getReason().isBlank()) {
      return "a reason is required";
    }
    if (a.getProcId() <= 0) {
      return "procedure id " + a.getProcId();
    }
    return null;
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

  /**
   * Refuses an executor's write stamped with an epoch of its term that a later fence replaced: it
   * comes from an executor incarnation that stopped by itself while its node stayed leader.
   */
  private CommandReply replacedEpoch(String what, long epoch, long term, long index) {
    rejectedWrites.incrementAndGet();
    long current = table.epochOf(term);
    LOG.warn(
        "Rejected {} of executor epoch {} of term {} carried by entry {}: epoch {} replaced that"
            + " executor",
        what,
        epoch,
        term,
        index,
        current);
    return rejected(
        "executor epoch " + epoch + " of term " + term + " was replaced by epoch " + current);
  }

  private CommandReply applyWrite(StoreWrite write, long term, long index) {
    if (write.getTerm() != term) {
      return fenced("a store write", write.getTerm(), term, index);
    }
    if (!table.epochCurrent(term, write.getEpoch())) {
      return replacedEpoch("a store write", write.getEpoch(), term, index);
    }
    // all or nothing: every batch is read and checked before any is applied
    StoreBatchProto[] batches = new StoreBatchProto[write.getBatchesCount()];
    Set<Long> writtenWhole = new HashSet<>();
    try {
      for (int i = 0; i < batches.length; i++) {
        batches[i] = parseAliased(write.getBatches(i));
        if (batches[i].getFormatVersion() > StoreBatch.FORMAT_VERSION) {
          throw new InvalidProtocolBufferException(
              "store batch format version "
                  + batches[i].getFormatVersion()
                  + ", newer than this node applies (up to "
                  + StoreBatch.FORMAT_VERSION
                  + ")");
        }
        for (int u = 0; u < batches[i].getUpsertsCount(); u++) {
          StoreRecordProto record = batches[i].getUpserts(u);
          long procId = record.getProcId();
          if (procId <= 0) {
            throw new InvalidProtocolBufferException("a record with procId " + procId);
          }
          checkParts(record, writtenWhole);
        }
      }
    } catch (InvalidProtocolBufferException e) {
      return rejected("entry " + index + " holds an unreadable store batch: " + e.getMessage());
    }
    for (StoreBatchProto b : batches) {
      table.apply(b);
    }
    appliedBatches.addAndGet(batches.length);
    appliedWriteEntries.incrementAndGet();
    return CommandReply.newBuilder().setWritten(true).build();
  }

  /**
   * Checks a record's parts: indexes not negative, and a delta changes a record the table holds or
   * the same entry wrote whole before it ({@code writtenWhole}, which this adds to).
   */
  private void checkParts(StoreRecordProto record, Set<Long> writtenWhole)
      throws InvalidProtocolBufferException {
    long procId = record.getProcId();
    for (int p = 0; p < record.getPartsCount(); p++) {
      if (record.getParts(p).getIndex() < 0) {
        throw new InvalidProtocolBufferException(
            "record " + procId + " has part " + record.getParts(p).getIndex());
      }
    }
    for (int p = 0; p < record.getDroppedPartsCount(); p++) {
      if (record.getDroppedParts(p) < 0) {
        throw new InvalidProtocolBufferException(
            "record " + procId + " drops part " + record.getDroppedParts(p));
      }
    }
    if (!record.getPartsDelta()) {
      writtenWhole.add(procId);
    } else if (!writtenWhole.contains(procId) && !table.contains(procId)) {
      throw new InvalidProtocolBufferException(
          "a parts delta for procedure " + procId + ", of which the table holds no record");
    }
  }

  /**
   * A batch read without copying its records' bytes: they alias the entry's (immutable) buffer
   * until the table copies each one it keeps.
   */
  private static StoreBatchProto parseAliased(ByteString bytes)
      throws InvalidProtocolBufferException {
    CodedInputStream in = bytes.newCodedInput();
    in.enableAliasing(true);
    try {
      return StoreBatchProto.parseFrom(in);
    } catch (InvalidProtocolBufferException e) {
      throw e;
    } catch (IOException e) {
      throw new InvalidProtocolBufferException(e);
    }
  }

  /** Opens the next executor epoch of the term (see {@code Fence} in consensus.proto). */
  private CommandReply applyFence(long fenceTerm, long term, long index) {
    if (fenceTerm != term) {
      return fenced("an executor fence", fenceTerm, term, index);
    }
    long epoch = table.fence(term);
    LOG.info("Entry {} opened executor epoch {} of term {}", index, epoch, term);
    return CommandReply.newBuilder().setEpoch(epoch).build();
  }

  private CommandReply applyMetadata(MetadataWrite write, long term, long index) {
    if (write.getTerm() != term) {
      return fenced("a metadata write", write.getTerm(), term, index);
    }
    if (!table.epochCurrent(term, write.getEpoch())) {
      return replacedEpoch("a metadata write", write.getEpoch(), term, index);
    }
    Map<String, byte[]> puts = new HashMap<>();
    for (MetadataEntry e : write.getPutsList()) {
      puts.put(e.getKey(), e.getValue().toByteArray());
    }
    table.applyMetadata(puts, write.getDeletesList());
    return CommandReply.newBuilder().setWritten(true).build();
  }

  /**
   * Applies submissions in order; adds the records they created to {@code created}. A submission
   * that would take the table past {@code liveCap} live roots (0: no cap) is refused; one that
   * repeats a known nonce still answers with its procedure.
   */
  private SubmitReply applySubmits(
      List<ByteString> envelopes, long liveCap, long index, List<StoreRecord> created) {
    SubmitReply.Builder results = SubmitReply.newBuilder();
    for (ByteString envelope : envelopes) {
      Submission result = applySubmit(envelope.toByteArray(), liveCap, index);
      results.addResults(result.result());
      if (result.created() != null) {
        created.add(result.created());
      }
    }
    return results.build();
  }

  /** The result of one submission, and the record it created (null for a repeated nonce). */
  private record Submission(SubmitResult result, StoreRecord created) {}

  private Submission applySubmit(byte[] envelope, long liveCap, long index) {
    try {
      ProcedureEnvelope env = ProcedureCodec.parseEnvelope(0, envelope);
      NonceKey nonce = ProcedureTable.nonceOf(env);
      boolean repeated = nonce != null && table.procIdOf(nonce) != 0;
      int live = table.liveRootCount();
      if (!repeated && liveCap > 0 && live >= liveCap) {
        return new Submission(
            SubmitResult.newBuilder().setOverCapacity(overCapacity(live, liveCap)).build(), null);
      }
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

  /** The refusal of a submission over the cap: the figures, and what the operator can do. */
  static String overCapacity(int live, long cap) {
    return "the cluster holds "
        + live
        + " unfinished procedures, its cap is "
        + cap
        + " (maxLiveProcedures); submit again once some have finished";
  }

  static CommandReply rejected(String why) {
    return CommandReply.newBuilder().setRejected(why).build();
  }
}
