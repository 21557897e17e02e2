package dev.baton.procedure.flow;

/**
 * The state of one flow node. SUCCESS and ERROR are terminal and never change; PENDING changes only
 * through an operator's resume.
 */
public enum NodeState {
  /** Appended to a stream flow, not yet linked to the chain. */
  INIT,
  /** Linked; waits for its trigger. */
  WAIT,
  /** Triggered (or waiting for a retry's backoff); its task is about to be submitted. */
  READY,
  /** Its task procedure runs. */
  RUNNING,
  /** Suspended after its retries (or shown so because an ancestor is suspended). */
  PENDING,
  SUCCESS,
  /** Failed after its retries, marked failed by an operator, or can never trigger. */
  ERROR;

  /** SUCCESS or ERROR. */
  public boolean isTerminal() {
    return this == SUCCESS || this == ERROR;
  }
}
