package dev.baton.procedure;

/**
 * Why a live procedure does not run now, in a few fixed kinds (its {@link
 * ProcedureExecutor#waitReason} text has the details). A procedure that is queued for a worker or
 * running has none.
 */
public enum WaitCategory {
  /** Parked on a resource lock another procedure holds. */
  LOCK,
  /** Waiting for a slot of its type's concurrency limit. */
  LIMIT,
  /** Waiting out the backoff before a failed step runs again. */
  BACKOFF,
  /** Waiting for its children to finish. */
  CHILDREN,
  /** Suspended until something wakes it. */
  SUSPENDED,
  /** Waiting until a time it asked for. */
  TIMER
}
