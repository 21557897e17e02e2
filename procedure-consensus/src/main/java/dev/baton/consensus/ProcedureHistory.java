package dev.baton.consensus;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.baton.consensus.proto.Command;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureCodecException;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.proto.StoreBatchProto;
import dev.baton.procedure.proto.StoreRecordProto;
import dev.baton.procedure.store.RecordParts;
import dev.baton.procedure.store.StoreBatch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.raftlog.RaftLogIOException;

/**
 * A procedure's state timeline read back from the store: every record of it that the executor wrote
 * through the committed entries this node's Raft log still holds (the log is purged behind
 * snapshots, so an old procedure's beginning may be gone: {@code complete} says whether the whole
 * log was read, from its first entry). Each step carries the entry's log index and term, the
 * record's time, state, step and failure, and its attempt: how many records in a row named the same
 * step (a retry after a failure or a backoff writes the step again). At most {@link #MAX_SCANNED}
 * entries, the newest, are read.
 *
 * @param procId the procedure
 * @param logStart the first log index read
 * @param complete whether the log was read from its very first entry (never purged, within {@link
 *     #MAX_SCANNED})
 * @param steps its records, oldest first
 */
public record ProcedureHistory(long procId, long logStart, boolean complete, List<Step> steps) {
  /** The index of a log's first entry: a log that starts there was never purged. */
  static final long FIRST_INDEX = 1;

  /** The most log entries one history reads. */
  public static final int MAX_SCANNED = 200_000;

  /**
   * One record of the procedure.
   *
   * @param index the log index of the entry that carried it
   * @param term that entry's term (the leader whose executor wrote it)
   * @param time the record's last-update time (epoch ms)
   * @param attempt 1, or one more than the record before when that one named the same step and
   *     failed
   */
  public record Step(
      long index,
      long term,
      long time,
      ProcedureState state,
      String step,
      int attempt,
      String failure,
      boolean finished) {}

  public ProcedureHistory {
    steps = List.copyOf(steps);
  }

  /** The history of {@code procId} in {@code log} up to its last committed entry. */
  static ProcedureHistory read(RaftLog log, ProcedureCodec codec, long procId)
      throws RaftLogIOException {
    long last = log.getLastCommittedIndex();
    long start = Math.max(log.getStartIndex(), last - MAX_SCANNED + 1);
    Timeline timeline = new Timeline(codec, procId);
    for (long i = start; i <= last; i++) {
      LogEntryProto entry = log.get(i);
      if (entry == null || !entry.hasStateMachineLogEntry()) {
        continue;
      }
      Command command;
      try {
        command = ProcedureStateMachine.parseCommand(entry.getStateMachineLogEntry().getLogData());
      } catch (IOException e) {
        continue; // not a command: the state machine refused it too
      }
      if (command.getKindCase() != Command.KindCase.WRITE) {
        continue;
      }
      for (ByteString batch : command.getWrite().getBatchesList()) {
        StoreBatchProto parsed;
        try {
          parsed = StoreBatchProto.parseFrom(batch);
        } catch (InvalidProtocolBufferException e) {
          continue; // the state machine refused it too
        }
        for (StoreRecordProto r : parsed.getUpsertsList()) {
          if (r.getProcId() == procId) {
            timeline.add(i, entry.getTerm(), r);
          }
        }
      }
    }
    return new ProcedureHistory(procId, start, start <= FIRST_INDEX, timeline.steps());
  }

  /**
   * The steps of one procedure's records, fed in log order. A record written with a parts delta
   * (one that changes only some of its parts, as a flow's step does) is read with the parts the
   * records before it left; when the record's last complete write is not among the records fed (the
   * log behind a snapshot was purged), its parts are not known, and the step is read from the
   * record's head alone, without a step name, rather than reported as a corrupt record.
   */
  static final class Timeline {
    private final ProcedureCodec codec;
    private final long procId;
    private final List<Step> steps = new ArrayList<>();
    private RecordParts parts = RecordParts.NONE;
    private boolean partsKnown;

    Timeline(ProcedureCodec codec, long procId) {
      this.codec = codec;
      this.procId = procId;
    }

    /** Adds the record {@code r} of the procedure, carried by the entry at {@code index}. */
    void add(long index, long term, StoreRecordProto r) {
      RecordParts written = StoreBatch.partsOf(r);
      byte[] data = r.getData().toByteArray();
      ProcedureInfo info;
      if (written.isComplete() || partsKnown) {
        parts = written.applyTo(parts);
        partsKnown = true;
        info = codec.describe(procId, data, parts);
      } else {
        info = headOnly(data);
      }
      String step = info.stepName() == null ? "" : info.stepName();
      Step previous = steps.isEmpty() ? null : steps.get(steps.size() - 1);
      int attempt =
          previous != null
                  && previous.step().equals(step)
                  && !previous.finished()
                  && previous.failure() != null
              ? previous.attempt() + 1
              : 1;
      steps.add(
          new Step(
              index,
              term,
              info.lastUpdate(),
              info.state(),
              step,
              attempt,
              info.failure(),
              info.finished()));
    }

    private ProcedureInfo headOnly(byte[] data) {
      try {
        return ProcedureCodec.toInfo(ProcedureCodec.parseEnvelope(procId, data), null);
      } catch (ProcedureCodecException e) {
        return codec.describe(procId, data); // unreadable: reported as a corrupt record
      }
    }

    List<Step> steps() {
      return steps;
    }
  }
}
