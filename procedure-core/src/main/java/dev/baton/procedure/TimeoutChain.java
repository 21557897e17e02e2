package dev.baton.procedure;

/**
 * The head of a procedure's chain of deadlines in the {@link TimeoutQueue}, so the queue drops a
 * procedure's deadlines without searching. Read and changed only by the queue, under its monitor.
 */
interface TimeoutChain {
  /** The newest of the procedure's deadlines in the queue, or null. */
  TimeoutQueue.Entry firstTimeoutEntry();

  void setFirstTimeoutEntry(TimeoutQueue.Entry entry);
}
