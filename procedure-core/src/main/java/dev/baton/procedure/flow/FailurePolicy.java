package dev.baton.procedure.flow;

/** What a node's failure does once its retries are exhausted. */
public enum FailurePolicy {
  /** The node becomes PENDING (its waiting descendants are shown PENDING) until resumed. */
  SUSPEND,
  /** The node is ERROR; its children evaluate their triggers with it as a failed parent. */
  CONTINUE,
  /** The node is ERROR and the flow ends: every node not yet terminal becomes ERROR. */
  END_FLOW
}
