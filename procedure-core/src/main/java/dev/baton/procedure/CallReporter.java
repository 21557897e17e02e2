package dev.baton.procedure;

/**
 * How a running step tells the executor about a call it makes to another system (a DataNode, a
 * remote service), so that {@link ProcedureExecutor#blockedOn} and the wait chain name the call
 * while it is in flight, and after it failed while its step waits to be retried ({@link
 * BlockedOn.ExternalCall}). A procedure gets its reporter from {@link Procedure#externalCalls()}.
 *
 * <pre>{@code
 * CallReporter calls = externalCalls();
 * calls.started("DataNode 2 at 127.0.0.1:7001", "sync_region CATCH_UP");
 * try {
 *   client.syncRegion(...);
 *   calls.succeeded();
 * } catch (IOException e) {
 *   calls.failed(e.getMessage());
 *   throw e;
 * }
 * }</pre>
 *
 * Reporting is optional and only informs; it changes nothing the executor does. Thread-safe.
 */
public interface CallReporter {

  /**
   * A call starts. The same target and command right after a failed one counts as the next attempt.
   */
  void started(String target, String command);

  /** The call answered: nothing is awaited any more. */
  void succeeded();

  /** The call failed with {@code error}; the step will fail (and maybe be retried). */
  void failed(String error);
}
