package dev.baton.procedure;

/**
 * What an executor reports as it runs, for an embedding to count and time (the ConfigNode turns
 * these into Prometheus metrics; this module has no metrics library). Every method is called on the
 * executor's own threads, in the middle of its work: implementations must be quick, must not block
 * and must not throw. Durations are in nanoseconds of {@link System#nanoTime} unless named
 * otherwise. The defaults do nothing; {@link #NONE} is the executor's default.
 *
 * <p>Gauges (live procedures by state, blocked ones by {@link WaitCategory}, the oldest live one of
 * each type) are not events: read them with {@link ProcedureExecutor#census()}.
 */
public interface ProcedureMetrics {
  /** Reports nothing. */
  ProcedureMetrics NONE = new ProcedureMetrics() {};

  /**
   * A procedure became live on this executor: a root submitted to it or adopted by it, or a child a
   * step created. Procedures a recovery rebuilds are not counted again.
   */
  default void submitted(String type) {}

  /**
   * A procedure reached its terminal state ({@link ProcedureState#SUCCESS}, {@link
   * ProcedureState#ROLLEDBACK}, or {@link ProcedureState#FAILED} with nothing to undo), {@code
   * millis} after it was submitted (wall clock; a recovered procedure keeps its submission time).
   */
  default void finished(String type, ProcedureState outcome, long millis) {}

  /** One step (or rollback step) of a procedure of {@code type} ran for {@code nanos}. */
  default void stepExecuted(String type, long nanos) {}

  /** A failed step that cannot be rolled back was scheduled to run again. */
  default void stepRetried(String type) {}

  /** A procedure was parked waiting for a resource lock. */
  default void lockWaitStarted(String type) {}

  /** A parked procedure got its locks after waiting {@code nanos}. */
  default void lockWaitEnded(String type, long nanos) {}

  /**
   * A wait-for cycle of {@code procedures} procedures was found among the lock holders and waiters.
   */
  default void deadlockFound(int procedures) {}

  /** A store write of the executor became durable {@code nanos} after it was handed over. */
  default void storeWritten(long nanos) {}

  /** A store write of the executor failed (the executor stops). */
  default void storeWriteFailed() {}
}
