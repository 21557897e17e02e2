package dev.baton.procedure;

/**
 * Thrown from a step that cannot make progress now: the step is not counted as done, and the
 * procedure goes to the back of the queue to be run again.
 */
public class ProcedureYieldException extends Exception {
  public ProcedureYieldException(String message) {
    super(message);
  }
}
