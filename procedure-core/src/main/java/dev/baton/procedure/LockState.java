package dev.baton.procedure;

import dev.baton.procedure.scheduler.LockManager;
import dev.baton.procedure.scheduler.LockOutcome;

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
  LOCK_EVENT_WAIT;

  /**
   * The state of an {@code acquireLock} that took its locks from a {@link LockManager}: {@link
   * #LOCK_ACQUIRED} for {@link LockOutcome#ACQUIRED}, {@link #LOCK_EVENT_WAIT} for {@link
   * LockOutcome#PARKED} (the manager wakes the procedure).
   *
   * <pre>{@code
   * protected LockState acquireLock(Env env) {
   *   return LockState.from(env.lockManager().acquire(this, request));
   * }
   * }</pre>
   */
  public static LockState from(LockOutcome outcome) {
    return switch (outcome) {
      case ACQUIRED -> LOCK_ACQUIRED;
      case PARKED -> LOCK_EVENT_WAIT;
    };
  }
}
