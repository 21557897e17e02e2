package dev.baton.procedure.flow;

/** The state of a whole flow. */
public enum FlowState {
  /** Submitted, no step has run yet. */
  INIT,
  /** Nodes are ready or running. */
  RUNNING,
  /** Nothing can progress until an operator resumes a suspended node. */
  PENDING,
  /** Every node is terminal (a stream flow may still grow: an append makes it RUNNING again). */
  FINISH
}
