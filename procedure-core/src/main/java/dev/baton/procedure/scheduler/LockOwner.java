package dev.baton.procedure.scheduler;

import java.util.ArrayList;
import java.util.List;

/**
 * What one procedure has in a {@link LockManager}: the locks it holds, the request it is parked
 * with (if any), and the message of a wait that timed out, kept until its next acquire. Guarded by
 * the manager's monitor.
 */
final class LockOwner {
  final Schedulable proc;
  final List<LockAndQueue> held = new ArrayList<>(2);
  LockWaiter waiting;
  String timedOut;

  LockOwner(Schedulable proc) {
    this.proc = proc;
  }

  boolean isIdle() {
    return held.isEmpty() && waiting == null && timedOut == null;
  }
}
