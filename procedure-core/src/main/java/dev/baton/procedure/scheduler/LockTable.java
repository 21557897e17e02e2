package dev.baton.procedure.scheduler;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The lock table of a {@link LockManager} and its grant algorithm: which procedure holds which
 * {@link LockAndQueue}, who waits where, and how a queue is served when a lock is released. Not
 * thread-safe: every call runs under the manager's monitor, and wake-ups are only collected into a
 * list that the manager delivers after releasing it.
 */
final class LockTable {
  private static final int MAX_ANCESTOR_DEPTH = 10_000;

  private final Map<ResourceKey, LockAndQueue> entries = new HashMap<>();
  private final Map<Schedulable, LockOwner> owners = new IdentityHashMap<>();
  // waiters queued since the manager last looked for wait-for cycles
  private List<LockWaiter> enqueued = new ArrayList<>(2);

  // the executor the manager is attached to; set by the manager under its monitor
  private LockHost host = LockHost.DETACHED;

  /** The executor the manager is attached to ({@link LockHost#DETACHED} if none). */
  LockHost host() {
    return host;
  }

  void host(LockHost attached) {
    host = attached;
  }

  /** The owner record of {@code proc}, or null if it holds and waits for nothing. */
  LockOwner owner(Schedulable proc) {
    return owners.get(proc);
  }

  /** Removes and returns the owner record of {@code proc} (null if none). */
  LockOwner removeOwner(Schedulable proc) {
    return owners.remove(proc);
  }

  /** Every owner record (a live view). */
  Collection<LockOwner> owners() {
    return Collections.unmodifiableCollection(owners.values());
  }

  /** The lock of {@code key}, or null if nobody holds or waits for it. */
  LockAndQueue entry(ResourceKey key) {
    return entries.get(key);
  }

  /** Every lock held or waited for (a live view). */
  Collection<LockAndQueue> entries() {
    return Collections.unmodifiableCollection(entries.values());
  }

  int entryCount() {
    return entries.size();
  }

  void clear() {
    entries.clear();
    owners.clear();
    enqueued.clear();
  }

  /** The owner record of {@code proc}, created if it has none. */
  LockOwner ownerOf(Schedulable proc) {
    return owners.computeIfAbsent(proc, LockOwner::new);
  }

  /**
   * The first lock that keeps {@code proc} from having all of {@code request} now, checking {@code
   * checkFirst} (the queue it waits on) before the others; null if it may have them all.
   */
  LockAndQueue blocker(
      Schedulable proc, LockOwner o, LockRequest request, LockAndQueue checkFirst) {
    LockRequest.Item[] items = request.itemArray();
    if (checkFirst != null) {
      LockMode mode = modeIn(items, checkFirst.key());
      if (mode != null && blocks(proc, o, checkFirst, mode)) {
        return checkFirst;
      }
    }
    for (LockRequest.Item item : items) {
      LockAndQueue e = entries.get(item.key());
      if (e != null && e != checkFirst && blocks(proc, o, e, item.mode())) {
        return e;
      }
    }
    return null;
  }

  static LockMode modeIn(LockRequest.Item[] items, ResourceKey key) {
    for (LockRequest.Item item : items) {
      if (item.key().equals(key)) {
        return item.mode();
      }
    }
    return null;
  }

  /** Whether lock {@code e} keeps {@code proc} from holding it in {@code mode} now. */
  boolean blocks(Schedulable proc, LockOwner o, LockAndQueue e, LockMode mode) {
    if (e.isExclusiveHolder(proc)) {
      return false;
    }
    boolean sharedByMe = e.isSharedHolder(proc);
    if (sharedByMe && mode == LockMode.SHARED) {
      return false;
    }
    if (e.isHeld() && ancestorHolds(proc, e, mode)) {
      return false;
    }
    if (e.hasExclusiveHolder()) {
      return true;
    }
    if (mode == LockMode.EXCLUSIVE && e.sharedCount() > (sharedByMe ? 1 : 0)) {
      return true;
    }
    // compatible with the holders; FIFO: only the head of the queue may pass waiters
    return e.hasWaiters() && (o == null || e.firstWaiter().owner() != o);
  }

  /** Whether an ancestor of {@code proc} holds {@code e} in a mode that covers {@code mode}. */
  boolean ancestorHolds(Schedulable proc, LockAndQueue e, LockMode mode) {
    Schedulable a = host.parentOf(proc);
    for (int depth = 0; a != null && depth < MAX_ANCESTOR_DEPTH; depth++) {
      if (e.isExclusiveHolder(a)) {
        return true;
      }
      if (mode == LockMode.SHARED && e.isSharedHolder(a)) {
        return true;
      }
      a = host.parentOf(a);
    }
    return false;
  }

  /** Registers {@code o} as holder of every item it does not hold or have access to yet. */
  void grantAll(LockOwner o, LockRequest request) {
    long now = host.now();
    Schedulable proc = o.proc();
    for (LockRequest.Item item : request.itemArray()) {
      LockAndQueue e = entries.get(item.key());
      if (e == null) {
        e = new LockAndQueue(item.key());
        entries.put(item.key(), e);
      }
      if (e.isExclusiveHolder(proc)) {
        continue;
      }
      boolean sharedByMe = e.isSharedHolder(proc);
      if (sharedByMe && item.mode() == LockMode.SHARED) {
        continue;
      }
      if (e.isHeld() && ancestorHolds(proc, e, item.mode())) {
        continue;
      }
      e.grant(proc, item.mode(), now);
      if (!sharedByMe) {
        // an upgrade from shared is already among the locks o holds
        o.held().add(e);
      }
    }
  }

  /** Drops every lock {@code o} holds and serves the queues of those locks. */
  void releaseHolds(LockOwner o, List<Schedulable> wake) {
    if (o.held().isEmpty()) {
      return;
    }
    List<LockAndQueue> released = new ArrayList<>(o.held());
    o.held().clear();
    for (LockAndQueue e : released) {
      e.release(o.proc());
    }
    for (LockAndQueue e : released) {
      process(e, wake);
    }
  }

  /** Parks {@code o} (holding nothing) on the queue of {@code blocker}, or keeps its place. */
  void park(LockOwner o, LockRequest request, LockAndQueue blocker, List<Schedulable> wake) {
    LockWaiter w = o.waiting();
    if (w == null) {
      long now = host.now();
      long timeout = request.waitTimeout().toMillis();
      w = new LockWaiter(o, request, now, timeout > 0 ? now + timeout : 0);
      o.setWaiting(w);
      enqueue(w, blocker);
      if (w.deadline() != 0) {
        host.scheduleWaitTimeout(o.proc(), w.deadline());
      }
      return;
    }
    w.setRequest(request);
    LockAndQueue q = w.queuedOn();
    LockMode modeOnQ = modeIn(request.itemArray(), q.key());
    if (q == blocker || (modeOnQ != null && blocks(o.proc(), o, q, modeOnQ))) {
      w.setWanted(modeOnQ != null ? modeOnQ : w.wanted());
      return; // still blocked where it waits: keep its place
    }
    dequeue(w);
    enqueue(w, blocker);
    process(q, wake);
  }

  void enqueue(LockWaiter w, LockAndQueue e) {
    w.setQueuedOn(e);
    w.setWanted(modeIn(w.request().itemArray(), e.key()));
    e.enqueue(w);
    enqueued.add(w);
  }

  LockAndQueue dequeue(LockWaiter w) {
    LockAndQueue e = w.queuedOn();
    e.removeWaiter(w);
    w.setQueuedOn(null);
    return e;
  }

  /**
   * Serves the queue of {@code e} from its head: grants every waiter that can have its whole
   * request, moves waiters blocked elsewhere to that lock's queue, and stops at the first waiter
   * this lock still blocks.
   */
  void process(LockAndQueue e, List<Schedulable> wake) {
    while (e.hasWaiters()) {
      LockWaiter w = e.firstWaiter();
      LockOwner o = w.owner();
      LockAndQueue b = blocker(o.proc(), o, w.request(), e);
      if (b == e) {
        break;
      }
      e.removeFirstWaiter();
      w.setQueuedOn(null);
      if (b == null) {
        o.setWaiting(null);
        grantAll(o, w.request());
        wake.add(o.proc());
      } else {
        enqueue(w, b);
      }
    }
    removeIfIdle(e);
  }

  void removeIfIdle(LockAndQueue e) {
    if (e.isIdle()) {
      entries.remove(e.key(), e);
    }
  }

  void forgetIfIdle(LockOwner o) {
    if (o.isIdle()) {
      owners.remove(o.proc(), o);
    }
  }

  static String describeTimeout(LockOwner o, LockWaiter w, long now) {
    return "procedure "
        + o.proc().getProcId()
        + " ("
        + o.proc().getType()
        + ") waited "
        + (now - w.since())
        + " ms, longer than its lock wait timeout of "
        + w.request().waitTimeout().toMillis()
        + " ms, for lock "
        + w.queuedOn().waitOf(w).describeLock(now);
  }

  /** Whether a waiter was queued since the last {@link #takeEnqueued}. */
  boolean hasEnqueued() {
    return !enqueued.isEmpty();
  }

  /** The waiters queued (or moved to another queue) since the last call, oldest first. */
  List<LockWaiter> takeEnqueued() {
    if (enqueued.isEmpty()) {
      return List.of();
    }
    List<LockWaiter> out = enqueued;
    enqueued = new ArrayList<>(2);
    return out;
  }
}
