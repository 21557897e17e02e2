package dev.baton.procedure.scheduler;

/**
 * A procedure parked in a {@link LockManager} was chosen to break a wait-for cycle ({@link
 * LockCycle}): it was taken off its wait queue, and {@link LockManager#acquire} throws this when it
 * runs again; the executor fails the procedure with it (and rolls back its tree). The message names
 * every procedure of the cycle and what each waits for.
 */
public final class LockDeadlockException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public LockDeadlockException(String message) {
    super(message);
  }
}
