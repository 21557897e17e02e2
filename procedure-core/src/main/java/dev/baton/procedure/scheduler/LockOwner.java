package dev.baton.procedure.scheduler;

import java.util.ArrayList;
import java.util.List;

/**
 * What one procedure has in a {@link LockManager}: the locks it holds, the request it is parked
 * with (if any), and why its wait was ended without a grant (a timeout or a deadlock it was failed
 * to break), kept until its next acquire throws it. Guarded by the manager's monitor.
 */
final class LockOwner {
  final Schedulable proc;
  final List<LockAndQueue> held = new ArrayList<>(2);
  LockWaiter waiting;
  RuntimeException refusal;

  LockOwner(Schedulable proc) {
    this.proc = proc;
  }

  boolean isIdle() {
    return held.isEmpty() && waiting == null && refusal == null;
  }
}
