package dev.baton.procedure;

/** Outcome of {@link Procedure#acquireLock}. */
public enum LockState {
  /** The lock is held; the step runs. */
  LOCK_ACQUIRED,
  /** Not available now; put the procedure back at the end of the queue and try again later. */
  LOCK_YIELD_WAIT,
  /**
   * Not available; the procedure has parked itself on the lock's wait queue and will be woken by
   * the release. The executor does not requeue it.
   */
  LOCK_EVENT_WAIT
}
