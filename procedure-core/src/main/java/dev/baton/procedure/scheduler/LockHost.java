package dev.baton.procedure.scheduler;

import dev.baton.procedure.Procedure;

/**
 * What a {@link LockManager} needs from the executor it serves: re-queue a procedure whose locks
 * were granted while it was parked, look up live procedures (for stale requests and for the lock
 * access of a lock holder's descendants), the clock, and a timer for lock-wait timeouts. The {@link
 * dev.baton.procedure.ProcedureExecutor} supplies one when it starts; tests and benchmarks may
 * supply their own.
 */
public interface LockHost {

  /** Queues {@code proc} to run (its locks were granted, or its lock wait timed out). */
  void wake(Procedure<?> proc);

  /**
   * Whether {@code proc} belongs to this host's executor. Requests from a procedure object of an
   * executor that stopped are ignored, so a stale worker cannot take locks in a rebuilt table.
   */
  boolean isLive(Procedure<?> proc);

  /** The live parent of {@code proc}, or null for a root (or an unknown parent). */
  Procedure<?> parentOf(Procedure<?> proc);

  /** Wall clock, epoch milliseconds. */
  long now();

  /**
   * Calls {@link LockManager#expireWait} for {@code proc} at {@code deadline} (epoch ms) and, if it
   * returns true, {@link #wake wakes} the procedure.
   */
  void scheduleWaitTimeout(Procedure<?> proc, long deadline);

  /** A host for a lock manager used on its own: no wake-ups, every procedure live, no ancestry. */
  LockHost DETACHED =
      new LockHost() {
        @Override
        public void wake(Procedure<?> proc) {}

        @Override
        public boolean isLive(Procedure<?> proc) {
          return true;
        }

        @Override
        public Procedure<?> parentOf(Procedure<?> proc) {
          return null;
        }

        @Override
        public long now() {
          return System.currentTimeMillis();
        }

        @Override
        public void scheduleWaitTimeout(Procedure<?> proc, long deadline) {}
      };
}
