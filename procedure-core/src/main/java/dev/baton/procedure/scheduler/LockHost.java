package dev.baton.procedure.scheduler;

/**
 * What a {@link LockManager} needs from the executor it serves: re-queue a procedure whose locks
 * were granted while it was parked, look up live procedures (for stale requests and for the lock
 * access of a lock holder's descendants), the clock, and a timer for lock-wait timeouts. The {@link
 * dev.baton.procedure.ProcedureExecutor} supplies one when it starts; tests and benchmarks may
 * supply their own.
 *
 * <p>The manager keeps only procedures for which {@link #isLive} returned true, so {@link #wake},
 * {@link #parentOf} and {@link #scheduleWaitTimeout} are only given those (or parents {@link
 * #parentOf} returned).
 */
public interface LockHost {

  /** Queues {@code proc} to run (its locks were granted, or its lock wait timed out). */
  void wake(Schedulable proc);

  /**
   * Whether {@code proc} belongs to this host's executor. Requests from a procedure object of an
   * executor that stopped are ignored, so a stale worker cannot take locks in a rebuilt table.
   */
  boolean isLive(Schedulable proc);

  /** The live parent of {@code proc}, or null for a root (or an unknown parent). */
  Schedulable parentOf(Schedulable proc);

  /** Wall clock, epoch milliseconds. */
  long now();

  /**
   * Calls {@link LockManager#expireWait} for {@code proc} at {@code deadline} (epoch ms) and, if it
   * returns true, {@link #wake wakes} the procedure.
   */
  void scheduleWaitTimeout(Schedulable proc, long deadline);

  /**
   * Whether a wait-for cycle ({@link LockCycle}) is broken by failing its youngest procedure that
   * waits for a lock; if false, a cycle is only reported.
   */
  default boolean breaksDeadlocks() {
    return false;
  }

  /**
   * Whether {@code proc}, parked on a lock, may be failed to break a cycle. A procedure that parked
   * for a rollback step may not: failing it would not end its wait.
   */
  default boolean mayFail(Schedulable proc) {
    return true;
  }

  /**
   * A cycle was found when a procedure parked (and broken, if {@link LockCycle#broken()}: its
   * victim is {@link #wake woken} and fails). Called after the manager's monitor is released; must
   * not block.
   */
  default void deadlockFound(LockCycle cycle) {}

  /** A host for a lock manager used on its own: no wake-ups, every procedure live, no ancestry. */
  LockHost DETACHED =
      new LockHost() {
        @Override
        public void wake(Schedulable proc) {}

        @Override
        public boolean isLive(Schedulable proc) {
          return true;
        }

        @Override
        public Schedulable parentOf(Schedulable proc) {
          return null;
        }

        @Override
        public long now() {
          return System.currentTimeMillis();
        }

        @Override
        public void scheduleWaitTimeout(Schedulable proc, long deadline) {}
      };
}
