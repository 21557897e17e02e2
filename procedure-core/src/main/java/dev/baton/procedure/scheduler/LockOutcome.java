package dev.baton.procedure.scheduler;

/**
 * What {@link LockManager#acquire} did. A procedure's {@code acquireLock} turns it into its {@code
 * LockState} with {@code LockState.from(outcome)}.
 */
public enum LockOutcome {
  /** Every lock of the request is held: the step may run. */
  ACQUIRED,
  /**
   * Not granted: the procedure holds nothing and is parked on a wait queue, and its host wakes it
   * when it can have every lock (or its request came from a stopped executor and is ignored).
   */
  PARKED
}
