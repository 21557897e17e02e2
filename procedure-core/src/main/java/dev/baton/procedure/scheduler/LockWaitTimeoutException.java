package dev.baton.procedure.scheduler;

/**
 * A procedure waited longer than its {@link LockRequest#waitTimeout()} for a lock. Thrown by {@link
 * LockManager#acquire} when the timed-out procedure runs again; the executor fails the procedure
 * with it (and rolls back its tree). The message names the procedure, the lock it waited for, and
 * who held the lock or was queued ahead of it when the wait expired.
 */
public final class LockWaitTimeoutException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public LockWaitTimeoutException(String message) {
    super(message);
  }
}
