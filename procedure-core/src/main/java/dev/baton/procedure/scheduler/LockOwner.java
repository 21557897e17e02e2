package dev.baton.procedure.scheduler;

import java.util.ArrayList;
import java.util.List;

/**
 * What one procedure has in a {@link LockManager}: the locks it holds, the request it is parked
 * with (if any), and why its wait was ended without a grant (a timeout or a deadlock it was failed
 * to break), kept until its next acquire throws it. Guarded by the manager's monitor.
 */
final class LockOwner {
  private final Schedulable proc;
  private final List<LockAndQueue> held = new ArrayList<>(2);
  private LockWaiter waiting;
  private RuntimeException refusal;

  LockOwner(Schedulable proc) {
    this.proc = proc;
  }

  Schedulable proc() {
    return proc;
  }

  /** The locks it holds, oldest first; the lock table adds to and clears it. */
  List<LockAndQueue> held() {
    return held;
  }

  /** The request it is parked with, or null. */
  LockWaiter waiting() {
    return waiting;
  }

  void setWaiting(LockWaiter waiting) {
    this.waiting = waiting;
  }

  /** Why its wait was ended without a grant, until its next acquire throws it; or null. */
  RuntimeException refusal() {
    return refusal;
  }

  void setRefusal(RuntimeException refusal) {
    this.refusal = refusal;
  }

  boolean isIdle() {
    return held.isEmpty() && waiting == null && refusal == null;
  }
}
