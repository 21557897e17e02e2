package dev.baton.procedure;

/**
 * The part of the executor's bookkeeping of one procedure that its store record carries: where its
 * executed steps sit in the root's rollback stack, how many children it waits for, the deadline of
 * its wait, its submission nonce and whether it holds its lock between steps. {@link
 * ProcedureCodec} writes and reads all of it; the other parts of the executor use their slice (the
 * stack, completion, admission, submissions).
 */
interface StoredBookkeeping {
  /** Positions of the procedure's executed steps in its root's rollback stack, oldest first. */
  int[] getStackIndexes();

  void setStackIndexes(int[] indexes);

  void addStackIndex(int index);

  /** Removes the newest stack index; true if indexes remain. */
  boolean removeNewestStackIndex();

  int getPendingChildren();

  void setPendingChildren(int n);

  /** Decrements the pending children count; true when it reached zero. */
  boolean childFinished();

  /** When the procedure's current wait ends (executor clock), 0 when it does not wait. */
  long getWaitDeadline();

  void setWaitDeadline(long deadline);

  /** The nonce it was submitted with, or null. */
  NonceKey getNonceKey();

  void setNonceKey(NonceKey nonceKey);

  /** Whether it holds its lock between steps (and so across recovery). */
  boolean isLockHeld();

  void setLockHeld(boolean lockHeld);
}
