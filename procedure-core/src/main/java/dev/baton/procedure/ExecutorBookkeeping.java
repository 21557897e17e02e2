package dev.baton.procedure;

import java.util.Arrays;

/**
 * The executor's bookkeeping for one {@link Procedure}, kept apart from what procedure authors see:
 * root-stack indexes, pending children, the held-lock flag, the nonce, the wait deadline (these are
 * persisted by {@link ProcedureCodec}), and, not persisted, the chain of deadlines in the {@link
 * TimeoutQueue}, the id lock that lets one worker at a time run the procedure, retry attempts, and
 * the wake and timeout signals.
 *
 * <p>Changed only by the executor, on the one worker that runs the procedure at a time (the id lock
 * guarantees that); the signals are volatile because other threads set them.
 */
final class ExecutorBookkeeping {
  private static final int[] NO_INDEXES = new int[0];

  private int[] stackIndexes = NO_INDEXES;
  private long waitDeadline;
  private NonceKey nonceKey;
  private boolean lockHeld;
  private int pendingChildren;
  // this procedure's deadlines in the timeout queue, chained (guarded by the queue)
  TimeoutQueue.Entry timeoutEntries;
  // one worker at a time runs this procedure (the seed's id lock)
  final IdLock idLock = new IdLock();
  // not persisted: the call to another system its step reported last
  final StepCalls calls = new StepCalls();
  // not persisted: failed attempts of the current non-rollback-able step
  private int retryAttempts;
  // not persisted: set by wake() or an expired wait; consumed by the worker
  private volatile boolean wakeRequested;
  private volatile boolean timeoutFired;
  // not persisted: System.nanoTime() when the procedure was parked on a lock; 0 when not parked
  private long lockWaitSince;

  long getWaitDeadline() {
    return waitDeadline;
  }

  void setWaitDeadline(long deadline) {
    this.waitDeadline = deadline;
  }

  NonceKey getNonceKey() {
    return nonceKey;
  }

  void setNonceKey(NonceKey nonceKey) {
    this.nonceKey = nonceKey;
  }

  boolean isLockHeld() {
    return lockHeld;
  }

  void setLockHeld(boolean lockHeld) {
    this.lockHeld = lockHeld;
  }

  int getPendingChildren() {
    return pendingChildren;
  }

  void setPendingChildren(int n) {
    this.pendingChildren = n;
  }

  /** Decrements the pending children count; true when it reached zero. */
  boolean childFinished() {
    pendingChildren--;
    return pendingChildren <= 0;
  }

  /** Positions of the procedure's executed steps in its root's rollback stack, oldest first. */
  int[] getStackIndexes() {
    return stackIndexes;
  }

  void setStackIndexes(int[] indexes) {
    this.stackIndexes = indexes;
  }

  void addStackIndex(int index) {
    int[] next = Arrays.copyOf(stackIndexes, stackIndexes.length + 1);
    next[stackIndexes.length] = index;
    stackIndexes = next;
  }

  /** Removes the newest stack index; true if indexes remain. */
  boolean removeNewestStackIndex() {
    if (stackIndexes.length > 0) {
      stackIndexes = Arrays.copyOf(stackIndexes, stackIndexes.length - 1);
    }
    return stackIndexes.length > 0;
  }

  int nextRetryAttempt() {
    return ++retryAttempts;
  }

  void resetRetryAttempts() {
    retryAttempts = 0;
  }

  /** The procedure was parked on a lock at {@code nanos}; true if a new wait began. */
  boolean startLockWait(long nanos) {
    if (lockWaitSince != 0) {
      return false;
    }
    lockWaitSince = nanos == 0 ? 1 : nanos;
    return true;
  }

  /** Ends a lock wait; returns when it began ({@link System#nanoTime}), 0 if none went on. */
  long endLockWait() {
    long since = lockWaitSince;
    lockWaitSince = 0;
    return since;
  }

  boolean takeWakeRequest() {
    boolean w = wakeRequested;
    wakeRequested = false;
    return w;
  }

  void requestWake() {
    wakeRequested = true;
  }

  boolean takeTimeoutFired() {
    boolean t = timeoutFired;
    timeoutFired = false;
    return t;
  }

  void fireTimeout() {
    timeoutFired = true;
  }
}
