package dev.baton.procedure.scheduler;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Why one procedure is parked in a {@link LockManager}: the lock whose queue it waits on, who holds
 * that lock, and who is queued ahead of it. Times are epoch milliseconds of the executor's clock.
 *
 * @param resource the lock it waits on, e.g. {@code region:db1/7}
 * @param wanted the mode it wants there
 * @param holders the lock's holders, oldest first (at most {@link #MAX_LISTED})
 * @param holderCount how many hold it (may exceed {@code holders.size()})
 * @param heldSince when the lock went from free to held; 0 if it is free
 * @param ahead ids of the procedures queued ahead of it, in order (at most {@link #MAX_LISTED})
 * @param aheadCount how many are queued ahead of it
 * @param waitingSince when it parked
 * @param timesOutAt when its lock wait times out; 0 for never
 */
public record LockWait(
    String resource,
    LockMode wanted,
    List<LockInfo.Holder> holders,
    int holderCount,
    long heldSince,
    List<Long> ahead,
    int aheadCount,
    long waitingSince,
    long timesOutAt) {
  /** Most holders and waiters ahead listed; the counts say how many there are. */
  public static final int MAX_LISTED = 16;

  private static final int MAX_NAMED_IN_TEXT = 5;

  public LockWait {
    holders = List.copyOf(holders);
    ahead = List.copyOf(ahead);
  }

  /**
   * The procedures it waits for: the holders when they hold the lock in a mode that excludes its
   * wish; else (a compatible lock it may not take before earlier waiters: FIFO) the waiters ahead.
   */
  public List<Long> blockers() {
    boolean holdersBlock =
        !holders.isEmpty()
            && (wanted == LockMode.EXCLUSIVE || holders.get(0).mode() == LockMode.EXCLUSIVE);
    if (holdersBlock) {
      List<Long> ids = new ArrayList<>(holders.size());
      holders.forEach(h -> ids.add(h.procId()));
      return ids;
    }
    return ahead;
  }

  /**
   * "region:db1/7 (EXCLUSIVE) held by procedure 12 (EXCLUSIVE) for 30 ms, behind 1 earlier waiter
   * (first: procedure 13)" at {@code now}.
   */
  public String describeLock(long now) {
    StringBuilder sb = new StringBuilder();
    sb.append(resource).append(" (").append(wanted).append(')');
    if (!holders.isEmpty()) {
      LockInfo.Holder first = holders.get(0);
      if (first.mode() == LockMode.EXCLUSIVE) {
        sb.append(" held by procedure ")
            .append(first.procId())
            .append(" (EXCLUSIVE) for ")
            .append(now - first.since())
            .append(" ms");
      } else {
        List<Long> ids = new ArrayList<>(holders.size());
        holders.forEach(h -> ids.add(h.procId()));
        ids.sort(null);
        sb.append(" held by procedure").append(holderCount > 1 ? "s " : " ");
        for (int i = 0; i < ids.size() && i < MAX_NAMED_IN_TEXT; i++) {
          sb.append(i > 0 ? ", " : "").append(ids.get(i));
        }
        int named = Math.min(ids.size(), MAX_NAMED_IN_TEXT);
        if (holderCount > named) {
          sb.append(" and ").append(holderCount - named).append(" more");
        }
        sb.append(" (SHARED) for ").append(now - heldSince).append(" ms");
      }
    }
    if (aheadCount > 0) {
      sb.append(holders.isEmpty() ? " " : ", ")
          .append("behind ")
          .append(aheadCount)
          .append(aheadCount == 1 ? " earlier waiter" : " earlier waiters")
          .append(" (first: procedure ")
          .append(ahead.get(0))
          .append(')');
    }
    return sb.toString();
  }

  /**
   * "waiting for lock region:db1/7 (EXCLUSIVE) held by procedure 12 (EXCLUSIVE) for 30 ms since
   * ..., lock wait times out at ..." at {@code now}.
   */
  public String describe(long now) {
    StringBuilder sb = new StringBuilder("waiting for lock ").append(describeLock(now));
    sb.append(" since ").append(Instant.ofEpochMilli(waitingSince));
    if (timesOutAt != 0) {
      sb.append(", lock wait times out at ").append(Instant.ofEpochMilli(timesOutAt));
    }
    return sb.toString();
  }
}
