package dev.baton.procedure.scheduler;

/**
 * A request parked on the queue of the lock that blocks it ({@link #queuedOn}), with the mode it
 * wants there, since when it waits and its wait deadline (0 for none; epoch ms). Guarded by the
 * {@link LockManager}'s monitor.
 */
final class LockWaiter {
  private final LockOwner owner;
  private final long since;
  private final long deadline;
  private LockRequest request;
  private LockAndQueue queuedOn;
  private LockMode wanted;

  LockWaiter(LockOwner owner, LockRequest request, long since, long deadline) {
    this.owner = owner;
    this.request = request;
    this.since = since;
    this.deadline = deadline;
  }

  LockOwner owner() {
    return owner;
  }

  /** Since when it waits (epoch ms). */
  long since() {
    return since;
  }

  /** When its wait times out (epoch ms); 0 for never. */
  long deadline() {
    return deadline;
  }

  LockRequest request() {
    return request;
  }

  void setRequest(LockRequest request) {
    this.request = request;
  }

  /** The lock whose queue it is parked on, or null once dequeued. */
  LockAndQueue queuedOn() {
    return queuedOn;
  }

  void setQueuedOn(LockAndQueue queuedOn) {
    this.queuedOn = queuedOn;
  }

  /** The mode it wants on {@link #queuedOn()}. */
  LockMode wanted() {
    return wanted;
  }

  void setWanted(LockMode wanted) {
    this.wanted = wanted;
  }
}
