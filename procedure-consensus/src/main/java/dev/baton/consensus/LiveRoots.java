package dev.baton.consensus;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.proto.ProcedureStateProto;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

/**
 * The root procedures of the replicated table that have not finished: submitted, and whose record
 * is neither SUCCESS nor ROLLEDBACK nor deleted. Kept up to date as entries are applied, so the cap
 * on live procedures is checked at apply from replicated state alone (every member decides alike).
 * Not thread-safe: the table's monitor guards it.
 */
final class LiveRoots {
  private final Set<Long> ids = new HashSet<>();

  /** A root was submitted under {@code procId}. */
  void submitted(long procId) {
    ids.add(procId);
  }

  /** The record of {@code procId} was written; a finished root leaves the set. */
  void written(long procId, byte[] record) {
    if (ids.contains(procId) && isFinished(record)) {
      ids.remove(procId);
    }
  }

  /** The record of {@code procId} was deleted. */
  void deleted(long procId) {
    ids.remove(procId);
  }

  /** Adds {@code env}'s procedure if it is a root that has not finished (a table being loaded). */
  void loaded(ProcedureEnvelope env) {
    if (env.getProcId() == env.getRootProcId() && !isFinished(env.getState())) {
      ids.add(env.getProcId());
    }
  }

  void clear() {
    ids.clear();
  }

  int count() {
    return ids.size();
  }

  private static boolean isFinished(ProcedureStateProto state) {
    return state == ProcedureStateProto.SUCCESS || state == ProcedureStateProto.ROLLEDBACK;
  }

  /**
   * Whether a stored record says its procedure finished, read from the envelope's state field alone
   * (protobuf writes fields in number order, so it comes before the large ones). A record that
   * cannot be read counts as finished: it never runs again.
   */
  static boolean isFinished(byte[] record) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(record);
      while (true) {
        int tag = in.readTag();
        if (tag == 0) {
          return false; // no state field: the default, not finished
        }
        int field = WireFormat.getTagFieldNumber(tag);
        if (field == ProcedureEnvelope.STATE_FIELD_NUMBER) {
          return isFinished(ProcedureStateProto.forNumber(in.readEnum()));
        }
        if (field > ProcedureEnvelope.STATE_FIELD_NUMBER) {
          return false;
        }
        in.skipField(tag);
      }
    } catch (IOException unreadable) {
      return true;
    }
  }
}
