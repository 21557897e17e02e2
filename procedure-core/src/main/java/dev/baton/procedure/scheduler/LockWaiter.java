package dev.baton.procedure.scheduler;

/**
 * A request parked on the queue of the lock that blocks it ({@link #queuedOn}), with the mode it
 * wants there, since when it waits and its wait deadline (0 for none; epoch ms). Guarded by the
 * {@link LockManager}'s monitor.
 */
final class LockWaiter {
  final LockOwner owner;
  final long since;
  final long deadline;
  LockRequest request;
  LockAndQueue queuedOn;
  LockMode wanted;

  LockWaiter(LockOwner owner, LockRequest request, long since, long deadline) {
    this.owner = owner;
    this.request = request;
    this.since = since;
    this.deadline = deadline;
  }
}
