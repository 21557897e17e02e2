package dev.baton.procedure.scheduler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * One lock of a {@link LockManager} (HBase's {@code LockAndQueue}): its exclusive holder or shared
 * holders, since when it is held, and the queue of procedures parked on it. Plain state, guarded by
 * the manager's monitor; the rules live in the manager.
 */
final class LockAndQueue {
  private final ResourceKey key;
  private Schedulable exclusive;
  private long exclusiveSince;
  private IdentityHashMap<Schedulable, Long> shared; // holder -> since; created on first use
  private ArrayDeque<LockWaiter> waiters; // created on first use
  private long heldSince;

  LockAndQueue(ResourceKey key) {
    this.key = key;
  }

  ResourceKey key() {
    return key;
  }

  /** Whether {@code proc} holds it exclusively. */
  boolean isExclusiveHolder(Schedulable proc) {
    return exclusive == proc;
  }

  /** Whether some procedure holds it exclusively. */
  boolean hasExclusiveHolder() {
    return exclusive != null;
  }

  /** Whether {@code proc} is among its shared holders. */
  boolean isSharedHolder(Schedulable proc) {
    return shared != null && shared.containsKey(proc);
  }

  /**
   * {@code proc} takes it at {@code now}, exclusively or shared; an exclusive grant to a shared
   * holder upgrades it.
   */
  void grant(Schedulable proc, LockMode mode, long now) {
    if (!isHeld()) {
      heldSince = now;
    }
    if (mode == LockMode.EXCLUSIVE) {
      if (shared != null) {
        shared.remove(proc);
      }
      exclusive = proc;
      exclusiveSince = now;
    } else {
      shared().put(proc, now);
    }
  }

  /** {@code proc} lets go of it, whichever way it held it. */
  void release(Schedulable proc) {
    if (exclusive == proc) {
      exclusive = null;
      exclusiveSince = 0;
    } else if (shared != null) {
      shared.remove(proc);
    }
    if (!isHeld()) {
      heldSince = 0;
    }
  }

  /** Whether procedures are parked on it. */
  boolean hasWaiters() {
    return waiters != null && !waiters.isEmpty();
  }

  /** The first parked request, or null. */
  LockWaiter firstWaiter() {
    return waiters == null ? null : waiters.peekFirst();
  }

  /** The newest parked request, or null. */
  LockWaiter lastWaiter() {
    return waiters == null ? null : waiters.peekLast();
  }

  /** Takes the first parked request off the queue. */
  void removeFirstWaiter() {
    waiters.pollFirst();
  }

  /** Parks {@code w} at the end of the queue. */
  void enqueue(LockWaiter w) {
    waiters().addLast(w);
  }

  /** Takes {@code w} off the queue. */
  void removeWaiter(LockWaiter w) {
    if (waiters != null) {
      waiters.remove(w);
    }
  }

  /** The parked requests, oldest first (empty if none). */
  Iterable<LockWaiter> waitersInOrder() {
    return waiters == null ? List.of() : waiters;
  }

  /** The parked requests, newest first. */
  Iterator<LockWaiter> waitersNewestFirst() {
    return waiters == null ? Collections.emptyIterator() : waiters.descendingIterator();
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

  private IdentityHashMap<Schedulable, Long> shared() {
    if (shared == null) {
      shared = new IdentityHashMap<>(4);
    }
    return shared;
  }

  private ArrayDeque<LockWaiter> waiters() {
    if (waiters == null) {
      waiters = new ArrayDeque<>(4);
    }
    return waiters;
  }

  /** The holders, oldest first, at most {@code max} of them. */
  private List<LockInfo.Holder> holders(int max) {
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
        if (holders.size() == max) {
          break;
        }
        holders.add(
            new LockInfo.Holder(
                s.getKey().getProcId(), s.getKey().getType(), LockMode.SHARED, s.getValue()));
      }
    }
    return holders;
  }

  /** The read-only view of this lock at {@code now}. */
  LockInfo toInfo(long now) {
    List<LockInfo.Waiter> queue = new ArrayList<>();
    if (waiters != null) {
      for (LockWaiter w : waiters) {
        queue.add(
            new LockInfo.Waiter(
                w.owner().proc().getProcId(), w.owner().proc().getType(), w.wanted(), w.since()));
      }
    }
    LockMode mode = exclusive != null ? LockMode.EXCLUSIVE : isHeld() ? LockMode.SHARED : null;
    return new LockInfo(
        key.toString(),
        key.type(),
        mode,
        heldSince,
        isHeld() ? Math.max(0, now - heldSince) : 0,
        holders(Integer.MAX_VALUE),
        queue);
  }

  /** Why {@code w}, parked on this lock's queue, waits: the holders and who is ahead of it. */
  LockWait waitOf(LockWaiter w) {
    List<Long> ahead = new ArrayList<>();
    int aheadCount = 0;
    for (LockWaiter other : waiters) {
      if (other == w) {
        break;
      }
      if (ahead.size() < LockWait.MAX_LISTED) {
        ahead.add(other.owner().proc().getProcId());
      }
      aheadCount++;
    }
    return new LockWait(
        key.toString(),
        w.wanted(),
        holders(LockWait.MAX_LISTED),
        (exclusive != null ? 1 : 0) + sharedCount(),
        heldSince,
        ahead,
        aheadCount,
        w.since(),
        w.deadline());
  }
}
