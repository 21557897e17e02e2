package dev.baton.confignode.history;

/** How a client operation ended, as the client saw it. */
public enum Outcome {
  /** Answered: the operation took effect (a submission) or returned what it read. */
  OK,
  /** Refused with a definite answer (e.g. a bad request): it took no effect. */
  FAILED,
  /**
   * No definite answer (timed out, connection lost, the node could not say): a submission may or
   * may not have been applied; never treated as failed.
   */
  UNKNOWN
}
