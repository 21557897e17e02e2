package dev.baton.procedure.flow;

/** What an operator's resume does with a PENDING node. */
public enum ResumeAction {
  /** Run the node's task again, with a fresh retry budget. */
  RERUN,
  /** Consider the node succeeded and go on. */
  MARK_SUCCEEDED,
  /** Consider the node failed (ERROR) and go on. */
  MARK_FAILED
}
