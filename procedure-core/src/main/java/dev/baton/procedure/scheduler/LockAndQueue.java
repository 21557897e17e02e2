package dev.baton.procedure.scheduler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One lock of a {@link LockManager} (HBase's {@code LockAndQueue}): its exclusive holder or shared
 * holders, since when it is held, and the queue of procedures parked on it. Plain state, guarded by
 * the manager's monitor; the rules live in the manager.
 */
final class LockAndQueue {
  private static final int MAX_NAMED_PROCEDURES = 5;

  final ResourceKey key;
  Schedulable exclusive;
  long exclusiveSince;
  IdentityHashMap<Schedulable, Long> shared; // holder -> since; created on first use
  ArrayDeque<LockWaiter> waiters; // created on first use
  long heldSince;

  LockAndQueue(ResourceKey key) {
    this.key = key;
  }

  boolean isHeld() {
    return exclusive != null || (shared != null && !shared.isEmpty());
  }

  boolean isIdle() {
    return !isHeld() && (waiters == null || waiters.isEmpty());
  }

  int sharedCount() {
    return shared == null ? 0 : shared.size();
  }

  IdentityHashMap<Schedulable, Long> shared() {
    if (shared == null) {
      shared = new IdentityHashMap<>(4);
    }
    return shared;
  }

  ArrayDeque<LockWaiter> waiters() {
    if (waiters == null) {
      waiters = new ArrayDeque<>(4);
    }
    return waiters;
  }

  /** The read-only view of this lock at {@code now}. */
  LockInfo toInfo(long now) {
    List<LockInfo.Holder> holders = new ArrayList<>();
    if (exclusive != null) {
      holders.add(
          new LockInfo.Holder(
              exclusive.getProcId(), exclusive.getType(), LockMode.EXCLUSIVE, exclusiveSince));
    }
    if (shared != null) {
      List<Map.Entry<Schedulable, Long>> byAge = new ArrayList<>(shared.entrySet());
      byAge.sort(
          (a, b) ->
              a.getValue().equals(b.getValue())
                  ? Long.compare(a.getKey().getProcId(), b.getKey().getProcId())
                  : Long.compare(a.getValue(), b.getValue()));
      for (Map.Entry<Schedulable, Long> s : byAge) {
        holders.add(
            new LockInfo.Holder(
                s.getKey().getProcId(), s.getKey().getType(), LockMode.SHARED, s.getValue()));
      }
    }
    List<LockInfo.Waiter> queue = new ArrayList<>();
    if (waiters != null) {
      for (LockWaiter w : waiters) {
        queue.add(
            new LockInfo.Waiter(
                w.owner.proc.getProcId(), w.owner.proc.getType(), w.wanted, w.since));
      }
    }
    LockMode mode = exclusive != null ? LockMode.EXCLUSIVE : isHeld() ? LockMode.SHARED : null;
    return new LockInfo(
        key.toString(),
        key.type(),
        mode,
        heldSince,
        isHeld() ? Math.max(0, now - heldSince) : 0,
        holders,
        queue);
  }

  /**
   * Appends why {@code w} waits here: "region:db1/7 (EXCLUSIVE) held by procedure 12 (EXCLUSIVE)
   * for 30 ms", and how many wait ahead of it.
   */
  void describeWait(StringBuilder sb, LockWaiter w, long now) {
    sb.append(key).append(" (").append(w.wanted).append(')');
    if (exclusive != null) {
      sb.append(" held by procedure ")
          .append(exclusive.getProcId())
          .append(" (EXCLUSIVE) for ")
          .append(now - exclusiveSince)
          .append(" ms");
    } else if (sharedCount() > 0) {
      List<Long> ids = new ArrayList<>();
      for (Schedulable p : shared.keySet()) {
        ids.add(p.getProcId());
      }
      ids.sort(null);
      sb.append(" held by procedure").append(ids.size() > 1 ? "s " : " ");
      for (int i = 0; i < ids.size() && i < MAX_NAMED_PROCEDURES; i++) {
        sb.append(i > 0 ? ", " : "").append(ids.get(i));
      }
      if (ids.size() > MAX_NAMED_PROCEDURES) {
        sb.append(" and ").append(ids.size() - MAX_NAMED_PROCEDURES).append(" more");
      }
      sb.append(" (SHARED) for ").append(now - heldSince).append(" ms");
    }
    int ahead = 0;
    LockWaiter first = null;
    for (LockWaiter other : waiters) {
      if (other == w) {
        break;
      }
      if (first == null) {
        first = other;
      }
      ahead++;
    }
    if (ahead > 0) {
      sb.append(isHeld() ? ", " : " ")
          .append("behind ")
          .append(ahead)
          .append(ahead == 1 ? " earlier waiter" : " earlier waiters")
          .append(" (first: procedure ")
          .append(first.owner.proc.getProcId())
          .append(')');
    }
  }
}
