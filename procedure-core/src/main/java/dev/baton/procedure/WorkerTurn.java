package dev.baton.procedure;

/**
 * What the worker running a procedure keeps about it between turns, not persisted: the id lock that
 * lets one worker at a time run it, the failed attempts of a step that is retried instead of rolled
 * back, when it began waiting for its resource lock, and the last call to another system its step
 * reported.
 */
interface WorkerTurn {
  /**
   * Takes the id lock for a turn; false if it is held, and then the holder is asked to queue the
   * procedure again when it lets go.
   */
  boolean acquireTurn();

  /** Takes the id lock only if it is free. */
  boolean tryAcquireTurn();

  /** Whether a worker holds the id lock now. */
  boolean isTurnHeld();

  /** Releases the id lock; true if a rerun was asked meanwhile (the caller queues it again). */
  boolean releaseTurn();

  int nextRetryAttempt();

  void resetRetryAttempts();

  /** The procedure was parked on a lock at {@code nanos}; true if a new wait began. */
  boolean startLockWait(long nanos);

  /** Ends a lock wait; returns when it began ({@link System#nanoTime}), 0 if none went on. */
  long endLockWait();

  /** The step ended, with {@code failure} described, or null when it succeeded. */
  void stepEnded(String failure);

  /** The last call to another system the step reported, or null. */
  StepCalls.Call lastCall();
}
