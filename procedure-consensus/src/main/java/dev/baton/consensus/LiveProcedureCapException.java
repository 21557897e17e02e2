package dev.baton.consensus;

import java.io.IOException;

/**
 * A submission refused because the cluster holds as many unfinished root procedures as its cap
 * allows ({@link ProcedureNode.Builder#maxLiveProcedures}). Nothing was created; the same
 * submission may succeed once some procedures have finished.
 */
public final class LiveProcedureCapException extends IOException {
  public LiveProcedureCapException(String message) {
    super(message);
  }
}
