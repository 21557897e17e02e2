package dev.baton.procedure;

import java.util.Arrays;

/**
 * The executor's bookkeeping for one {@link Procedure}, kept apart from what procedure authors see:
 * root-stack indexes, pending children, the held-lock flag, the nonce, the wait deadline (these are
 * persisted by {@link ProcedureCodec}), and, not persisted, the chain of deadlines in the {@link
 * TimeoutQueue}, the id lock that lets one worker at a time run the procedure, retry attempts, and
 * the wake and timeout signals. The rest of the executor sees it only through the view of its
 * concept: {@link StoredBookkeeping}, {@link TurnSignals}, {@link WorkerTurn}, {@link
 * TimeoutChain}.
 *
 * <p>Changed only by the executor, on the one worker that runs the procedure at a time (the id lock
 * guarantees that); the signals are volatile because other threads set them.
 */
final class ExecutorBookkeeping
    implements StoredBookkeeping, TurnSignals, WorkerTurn, TimeoutChain {
  private static final int[] NO_INDEXES = new int[0];

  private int[] stackIndexes = NO_INDEXES;
  private long waitDeadline;
  private NonceKey nonceKey;
  private boolean lockHeld;
  private int pendingChildren;
  // this procedure's deadlines in the timeout queue, chained (guarded by the queue)
  private TimeoutQueue.Entry timeoutEntries;
  // one worker at a time runs this procedure (the seed's id lock)
  private final IdLock idLock = new IdLock();
  // not persisted: the call to another system its step reported last
  private final StepCalls calls = new StepCalls();
  // not persisted: failed attempts of the current non-rollback-able step
  private int retryAttempts;
  // not persisted: set by wake() or an expired wait; consumed by the worker
  private volatile boolean wakeRequested;
  private volatile boolean timeoutFired;
  // not persisted: System.nanoTime() when the procedure was parked on a lock; 0 when not parked
  private long lockWaitSince;
  // not persisted: an operator's force-fail, taken as the failure at the next turn
  private volatile ProcedureFailure forcedFailure;
  // not persisted: an operator's bypass; the next turn finishes the procedure without a step
  private volatile boolean bypassRequested;

  @Override
  public ProcedureFailure forcedFailure() {
    return forcedFailure;
  }

  @Override
  public void forceFailure(ProcedureFailure failure) {
    this.forcedFailure = failure;
  }

  @Override
  public boolean isBypassRequested() {
    return bypassRequested;
  }

  @Override
  public void requestBypass() {
    this.bypassRequested = true;
  }

  @Override
  public long getWaitDeadline() {
    return waitDeadline;
  }

  @Override
  public void setWaitDeadline(long deadline) {
    this.waitDeadline = deadline;
  }

  @Override
  public NonceKey getNonceKey() {
    return nonceKey;
  }

  @Override
  public void setNonceKey(NonceKey nonceKey) {
    this.nonceKey = nonceKey;
  }

  @Override
  public boolean isLockHeld() {
    return lockHeld;
  }

  @Override
  public void setLockHeld(boolean lockHeld) {
    this.lockHeld = lockHeld;
  }

  @Override
  public int getPendingChildren() {
    return pendingChildren;
  }

  @Override
  public void setPendingChildren(int n) {
    this.pendingChildren = n;
  }

  @Override
  public boolean childFinished() {
    pendingChildren--;
    return pendingChildren <= 0;
  }

  @Override
  public int[] getStackIndexes() {
    return stackIndexes;
  }

  @Override
  public void setStackIndexes(int[] indexes) {
    this.stackIndexes = indexes;
  }

  @Override
  public void addStackIndex(int index) {
    int[] next = Arrays.copyOf(stackIndexes, stackIndexes.length + 1);
    next[stackIndexes.length] = index;
    stackIndexes = next;
  }

  @Override
  public boolean removeNewestStackIndex() {
    if (stackIndexes.length > 0) {
      stackIndexes = Arrays.copyOf(stackIndexes, stackIndexes.length - 1);
    }
    return stackIndexes.length > 0;
  }

  @Override
  public int nextRetryAttempt() {
    return ++retryAttempts;
  }

  @Override
  public void resetRetryAttempts() {
    retryAttempts = 0;
  }

  @Override
  public boolean startLockWait(long nanos) {
    if (lockWaitSince != 0) {
      return false;
    }
    lockWaitSince = nanos == 0 ? 1 : nanos;
    return true;
  }

  @Override
  public long endLockWait() {
    long since = lockWaitSince;
    lockWaitSince = 0;
    return since;
  }

  @Override
  public boolean takeWakeRequest() {
    boolean w = wakeRequested;
    wakeRequested = false;
    return w;
  }

  @Override
  public void requestWake() {
    wakeRequested = true;
  }

  @Override
  public boolean takeTimeoutFired() {
    boolean t = timeoutFired;
    timeoutFired = false;
    return t;
  }

  @Override
  public void fireTimeout() {
    timeoutFired = true;
  }

  /** Where the running step reports its calls to other systems. */
  CallReporter callReporter() {
    return calls;
  }

  @Override
  public boolean acquireTurn() {
    return idLock.acquireOrAskRerun();
  }

  @Override
  public boolean tryAcquireTurn() {
    return idLock.tryAcquire();
  }

  @Override
  public boolean isTurnHeld() {
    return idLock.isHeld();
  }

  @Override
  public boolean releaseTurn() {
    return idLock.release();
  }

  @Override
  public void stepEnded(String failure) {
    calls.stepEnded(failure);
  }

  @Override
  public StepCalls.Call lastCall() {
    return calls.last();
  }

  @Override
  public TimeoutQueue.Entry firstTimeoutEntry() {
    return timeoutEntries;
  }

  @Override
  public void setFirstTimeoutEntry(TimeoutQueue.Entry entry) {
    timeoutEntries = entry;
  }
}
