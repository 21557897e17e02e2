package dev.baton.procedure;

/**
 * Thrown from a step that waits for an outside event: the procedure is parked as WAITING (not
 * queued, holding no worker) until {@link ProcedureExecutor#wake(long)} is called for it.
 */
public class ProcedureSuspendedException extends Exception {
  public ProcedureSuspendedException(String message) {
    super(message);
  }
}
