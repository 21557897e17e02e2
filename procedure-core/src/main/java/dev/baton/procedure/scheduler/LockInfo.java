package dev.baton.procedure.scheduler;

import java.util.List;

/**
 * A read-only snapshot of one lock of a {@link LockManager}: who holds it, in which mode, since
 * when, and who waits for it in order. Times are epoch milliseconds of the executor's clock.
 *
 * @param resource the locked resource, e.g. {@code region:db1/7}
 * @param type the resource's type
 * @param mode EXCLUSIVE or SHARED while held; null when only waiters remain
 * @param heldSince when the lock went from free to held without a gap since; 0 if free
 * @param heldMillis how long it has been held at the time of the snapshot; 0 if free
 * @param holders the holders, oldest first
 * @param waiters the procedures parked on this lock, in the order they will be served
 */
public record LockInfo(
    String resource,
    ResourceType type,
    LockMode mode,
    long heldSince,
    long heldMillis,
    List<Holder> holders,
    List<Waiter> waiters) {

  public LockInfo {
    holders = List.copyOf(holders);
    waiters = List.copyOf(waiters);
  }

  /** One holder of a lock. */
  public record Holder(long procId, String procType, LockMode mode, long since) {}

  /** One procedure parked on a lock, and the mode it wants. */
  public record Waiter(long procId, String procType, LockMode mode, long since) {}
}
