package dev.baton.procedure;

/**
 * Requests that other threads leave for a procedure and that its next turn on a worker takes: a
 * wake, an expired wait, an operator's force-fail or bypass. Not persisted; safe to set from any
 * thread.
 */
interface TurnSignals {
  void requestWake();

  /** Whether a wake was requested since the last call; clears the request. */
  boolean takeWakeRequest();

  void fireTimeout();

  /** Whether a wait expired since the last call; clears the signal. */
  boolean takeTimeoutFired();

  void forceFailure(ProcedureFailure failure);

  /** The failure an operator forced on the procedure, taken at its next turn, or null. */
  ProcedureFailure forcedFailure();

  void requestBypass();

  /** Whether an operator asked to finish the procedure without running another step. */
  boolean isBypassRequested();
}
