package dev.baton.procedure.scheduler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shared and exclusive resource locks with wait queues (HBase's {@code SchemaLocking} and {@code
 * LockAndQueue}). Procedures call it from their {@code acquireLock} and {@code releaseLock}:
 *
 * <pre>{@code
 * protected LockState acquireLock(Env env) {
 *   return LockState.from(
 *       env.lockManager().acquire(this, LockRequest.exclusive(ResourceKey.region(db, id))));
 * }
 * protected void releaseLock(Env env) {
 *   env.lockManager().release(this);
 * }
 * }</pre>
 *
 * The executor must use the same instance: make the environment a {@link LockEnvironment}, or pass
 * the manager to {@code ProcedureExecutor.Builder.lockManager}.
 *
 * <h2>Rules</h2>
 *
 * <ul>
 *   <li><b>All or none.</b> {@link #acquire} grants every lock of the {@link LockRequest} (expanded
 *       through the resource hierarchy) or none. A procedure that cannot have them all holds
 *       nothing while it waits (anything it held is released first), so waiting procedures never
 *       hold locks others wait for: no deadlock among procedures that take their locks in one
 *       request.
 *   <li><b>Parking, no polling.</b> A blocked procedure is parked on the wait queue of the first
 *       lock that blocks it and {@code acquire} returns {@link LockOutcome#PARKED}; the executor
 *       frees its worker. When that lock is released, the queue is served from its head: each
 *       waiter whose whole request can now be granted gets it (the locks are handed to it before it
 *       runs, so nobody can take them in between) and is {@link LockHost#wake woken}; a waiter
 *       still blocked by another lock moves to that lock's queue; the first waiter still blocked by
 *       this lock stops the pass. When the woken procedure calls {@code acquire} again it finds its
 *       locks held and gets {@link LockOutcome#ACQUIRED}.
 *   <li><b>FIFO, no barging.</b> A request may take a lock only if nobody waits for it, or if it is
 *       the head of the lock's queue. A stream of shared requests therefore cannot starve an
 *       exclusive waiter: once it waits, later requests queue behind it. Consecutive shared waiters
 *       at the head are granted together.
 *   <li><b>Lock access of descendants.</b> A lock held exclusively by an ancestor of the requesting
 *       procedure (or shared, for a shared request) counts as held by the requester, without
 *       queueing (HBase's {@code hasLockAccess}): a parent that holds a database exclusively across
 *       its steps ({@code holdLock}) can run children that lock that database's regions. Do not ask
 *       a child for an exclusive lock its ancestor holds shared: it waits for the ancestor, which
 *       waits for it.
 *   <li><b>Deadlocks.</b> The holders and waiters form a wait-for graph (a waiter waits for the
 *       holders that exclude it and for the waiters ahead of it, an ancestor for its descendants);
 *       each time a procedure parks, the manager looks for a cycle through it ({@link
 *       WaitForGraph}). A cycle found is logged at WARN, counted ({@link #deadlockCount()}) and
 *       told to the host; if the host {@link LockHost#breaksDeadlocks() breaks deadlocks}, the
 *       youngest procedure of the cycle that waits for a lock is taken off its queue and woken, and
 *       its next {@code acquire} throws {@link LockDeadlockException} naming the cycle. Cycles left
 *       in place show in {@link #cycles()}.
 *   <li><b>Wait timeout.</b> A request with a {@link LockRequest#waitTimeout()} that waits longer
 *       is taken off the queue and woken; its next {@code acquire} throws {@link
 *       LockWaitTimeoutException} naming the lock and its holders, and the executor fails the
 *       procedure.
 * </ul>
 *
 * <p>Holders are procedure objects (identity), so a procedure object of an executor that stopped
 * can neither take nor release the locks of its successor. The executor {@link #attach attaches}
 * the manager when it starts, which empties the table; recovery then re-takes the locks that
 * procedures held across steps before any procedure runs.
 *
 * <p>Thread-safe: one monitor guards the table; wake-ups are delivered after it is released.
 */
public final class LockManager {
  private static final Logger LOG = LoggerFactory.getLogger(LockManager.class);

  /** Most recent deadlocks kept for {@link #recentDeadlocks()}. */
  public static final int MAX_RECENT_DEADLOCKS = 16;

  private final LockTable table = new LockTable();
  private final AtomicLong deadlocks = new AtomicLong();
  private final ArrayDeque<LockCycle> recent = new ArrayDeque<>(); // guarded by this

  /** A manager with an empty table, {@link LockHost#DETACHED detached} until an executor starts. */
  public LockManager() {}

  // ---------------------------------------------------------------- executor side

  /**
   * Binds the manager to the executor that starts with it and empties the table: locks of an
   * executor that stopped are void, and recovery re-takes the held ones. Called by {@code
   * ProcedureExecutor.start()}.
   */
  public synchronized void attach(LockHost newHost) {
    Objects.requireNonNull(newHost, "host");
    if (table.host() != LockHost.DETACHED && table.host() != newHost) {
      LOG.warn(
          "lock manager taken over by a new executor while the previous one had not stopped; "
              + "the {} locks of the previous one are dropped. Stop an executor before starting "
              + "its successor on the same lock manager.",
          table.entryCount());
    }
    table.host(newHost);
    table.clear();
  }

  /** Unbinds {@code oldHost} (if still bound): wake-ups and timers stop. The table is kept. */
  public synchronized void detach(LockHost oldHost) {
    if (table.host() == oldHost) {
      table.host(LockHost.DETACHED);
    }
  }

  /**
   * The lock-wait deadline of {@code proc} passed: if it still waits and its deadline is due, takes
   * it off the queue, remembers why (its next {@link #acquire} throws {@link
   * LockWaitTimeoutException}) and returns true; the caller then wakes it.
   */
  public boolean expireWait(Schedulable proc) {
    List<Schedulable> wake = new ArrayList<>();
    List<LockCycle> found;
    synchronized (this) {
      LockOwner o = table.owner(proc);
      if (o == null || o.waiting() == null) {
        return false;
      }
      LockWaiter w = o.waiting();
      long now = table.host().now();
      if (w.deadline() == 0 || now < w.deadline()) {
        return false;
      }
      o.setRefusal(new LockWaitTimeoutException(table.describeTimeout(o, w, now)));
      LockAndQueue q = table.dequeue(w);
      o.setWaiting(null);
      table.process(q, wake);
      found = findCycles(wake);
    }
    report(found);
    wakeAll(wake);
    return true;
  }

  // ---------------------------------------------------------------- procedures

  /**
   * Takes every lock of {@code request} for {@code proc}, or parks it.
   *
   * @return {@link LockOutcome#ACQUIRED} if {@code proc} now holds every lock of the request
   *     (including locks handed to it while it was parked); {@link LockOutcome#PARKED} if it was
   *     parked (holding nothing) and will be woken when it can have them all
   * @throws LockWaitTimeoutException if the previous wait of {@code proc} timed out
   * @throws LockDeadlockException if {@code proc} was taken off its wait queue to break a deadlock
   */
  public LockOutcome acquire(Schedulable proc, LockRequest request) {
    Objects.requireNonNull(proc, "proc");
    Objects.requireNonNull(request, "request");
    List<Schedulable> wake = null;
    LockOutcome result;
    List<LockCycle> found;
    synchronized (this) {
      if (!table.host().isLive(proc)) {
        return LockOutcome.PARKED; // an object of a stopped executor: it never runs again
      }
      LockOwner o = table.owner(proc);
      if (o != null && o.refusal() != null) {
        RuntimeException refusal = o.refusal();
        o.setRefusal(null);
        table.forgetIfIdle(o);
        throw refusal;
      }
      LockAndQueue first = o != null && o.waiting() != null ? o.waiting().queuedOn() : null;
      LockAndQueue blocker = table.blocker(proc, o, request, first);
      if (blocker != null && o != null && !o.held().isEmpty()) {
        // all or none: wait holding nothing, then look again
        wake = new ArrayList<>();
        table.releaseHolds(o, wake);
        first = o.waiting() != null ? o.waiting().queuedOn() : null;
        blocker = table.blocker(proc, o, request, first);
      }
      if (blocker == null) {
        if (o == null) {
          o = table.ownerOf(proc);
        }
        if (o.waiting() != null) {
          LockAndQueue q = table.dequeue(o.waiting());
          o.setWaiting(null);
          table.grantAll(o, request);
          wake = wake == null ? new ArrayList<>() : wake;
          table.process(q, wake); // waiters behind it may share the lock
        } else {
          table.grantAll(o, request);
        }
        table.forgetIfIdle(o); // everything was covered by an ancestor's locks
        result = LockOutcome.ACQUIRED;
      } else {
        if (o == null) {
          o = table.ownerOf(proc);
        }
        wake = wake == null ? new ArrayList<>() : wake;
        table.park(o, request, blocker, wake);
        result = LockOutcome.PARKED;
      }
      if (table.hasEnqueued()) {
        wake = wake == null ? new ArrayList<>() : wake;
        found = findCycles(wake);
      } else {
        found = List.of();
      }
    }
    report(found);
    wakeAll(wake);
    return result;
  }

  /**
   * Releases every lock {@code proc} holds and takes it off any wait queue; waiters that can now
   * have their locks get them and are woken. Releasing what is not held does nothing.
   */
  public void release(Schedulable proc) {
    List<Schedulable> wake = new ArrayList<>();
    List<LockCycle> found;
    synchronized (this) {
      LockOwner o = table.removeOwner(proc);
      if (o == null) {
        return;
      }
      LockAndQueue q = null;
      if (o.waiting() != null) {
        q = table.dequeue(o.waiting());
        o.setWaiting(null);
      }
      table.releaseHolds(o, wake);
      if (q != null) {
        table.process(q, wake);
      }
      found = findCycles(wake);
    }
    report(found);
    wakeAll(wake);
  }

  // ---------------------------------------------------------------- deadlocks

  /**
   * Looks for a wait-for cycle through every waiter queued since the last look and breaks each one
   * found if the host says so (the victim joins {@code wake}). Under the monitor.
   */
  private List<LockCycle> findCycles(List<Schedulable> wake) {
    List<LockCycle> found = null;
    for (List<LockWaiter> fresh = table.takeEnqueued();
        !fresh.isEmpty();
        fresh = table.takeEnqueued()) {
      for (LockWaiter w : fresh) {
        if (w.owner().waiting() != w || w.queuedOn() == null) {
          continue; // granted, moved on or gone since it was queued
        }
        WaitForGraph.Found cycle = WaitForGraph.cycleThrough(table, w.owner().proc());
        if (cycle == null) {
          continue;
        }
        LockCycle c = new LockCycle(table.host().now(), cycle.links(), 0);
        if (table.host().breaksDeadlocks()) {
          LockOwner victim = victimOf(cycle);
          if (victim != null) {
            c = c.brokenBy(victim.proc().getProcId());
            victim.setRefusal(new LockDeadlockException(c.describe()));
            LockAndQueue q = table.dequeue(victim.waiting());
            victim.setWaiting(null);
            table.process(q, wake);
            wake.add(victim.proc());
          }
        }
        deadlocks.incrementAndGet();
        if (recent.size() == MAX_RECENT_DEADLOCKS) {
          recent.pollFirst();
        }
        recent.addLast(c);
        if (found == null) {
          found = new ArrayList<>();
        }
        found.add(c);
      }
    }
    return found == null ? List.of() : found;
  }

  /** The youngest (highest id) procedure of the cycle that is parked and may be failed; or null. */
  private LockOwner victimOf(WaitForGraph.Found cycle) {
    LockOwner victim = null;
    for (Schedulable p : cycle.members()) {
      LockOwner o = table.owner(p);
      if (o != null
          && o.waiting() != null
          && table.host().mayFail(p)
          && (victim == null || p.getProcId() > victim.proc().getProcId())) {
        victim = o;
      }
    }
    return victim;
  }

  private void report(List<LockCycle> found) {
    if (found.isEmpty()) {
      return;
    }
    LockHost h;
    synchronized (this) {
      h = table.host();
    }
    for (LockCycle c : found) {
      LOG.warn(
          "{}{}",
          c.describe(),
          c.broken() ? "" : " (left in place: the executor does not break deadlocks)");
      h.deadlockFound(c);
    }
  }

  /** How many wait-for cycles were found since this manager was made. */
  public long deadlockCount() {
    return deadlocks.get();
  }

  /** The last {@value #MAX_RECENT_DEADLOCKS} cycles found, oldest first, broken or not. */
  public synchronized List<LockCycle> recentDeadlocks() {
    return List.copyOf(recent);
  }

  /** The wait-for cycles in the table now (none once every cycle found was broken). */
  public synchronized List<LockCycle> cycles() {
    long now = table.host().now();
    List<LockCycle> out = new ArrayList<>();
    for (WaitForGraph.Found f : WaitForGraph.allCycles(table)) {
      out.add(new LockCycle(now, f.links(), 0));
    }
    return out;
  }

  /** The mode in which {@code proc} itself holds {@code key}, if it does. */
  public synchronized Optional<LockMode> heldMode(Schedulable proc, ResourceKey key) {
    LockAndQueue e = table.entry(key);
    if (e == null) {
      return Optional.empty();
    }
    if (e.isExclusiveHolder(proc)) {
      return Optional.of(LockMode.EXCLUSIVE);
    }
    return e.isSharedHolder(proc) ? Optional.of(LockMode.SHARED) : Optional.empty();
  }

  /** Whether {@code proc} is parked on a wait queue. */
  public synchronized boolean isWaiting(Schedulable proc) {
    LockOwner o = table.owner(proc);
    return o != null && o.waiting() != null;
  }

  /**
   * Why {@code proc} waits, e.g. {@code "waiting for lock region:db1/7 (EXCLUSIVE) held by
   * procedure 12 (EXCLUSIVE) for 1500 ms"}; empty if it does not wait for a lock.
   */
  public synchronized Optional<String> waitReason(Schedulable proc) {
    LockOwner o = table.owner(proc);
    if (o == null) {
      return Optional.empty();
    }
    if (o.refusal() instanceof LockWaitTimeoutException) {
      return Optional.of("lock wait timed out: " + o.refusal().getMessage());
    }
    if (o.refusal() != null) {
      return Optional.of("failing to break a deadlock: " + o.refusal().getMessage());
    }
    return lockWait(proc).map(w -> w.describe(table.host().now()));
  }

  /** The lock {@code proc} is parked on and who holds it or is ahead of it; empty if not parked. */
  public synchronized Optional<LockWait> lockWait(Schedulable proc) {
    LockOwner o = table.owner(proc);
    if (o == null || o.waiting() == null) {
      return Optional.empty();
    }
    return Optional.of(o.waiting().queuedOn().waitOf(o.waiting()));
  }

  /** The lock table: every held or awaited lock, ordered by resource (parents first). */
  public synchronized List<LockInfo> snapshot() {
    long now = table.host().now();
    List<LockAndQueue> sorted = new ArrayList<>(table.entries());
    sorted.sort((a, b) -> a.key().compareTo(b.key()));
    List<LockInfo> out = new ArrayList<>(sorted.size());
    for (LockAndQueue e : sorted) {
      out.add(e.toInfo(now));
    }
    return List.copyOf(out);
  }

  /** Number of locks in the table (held or awaited). */
  public synchronized int size() {
    return table.entryCount();
  }

  private void wakeAll(List<Schedulable> wake) {
    if (wake == null) {
      return;
    }
    LockHost h;
    synchronized (this) {
      for (Schedulable p : wake) {
        LockOwner o = table.owner(p);
        if (o != null) {
          table.forgetIfIdle(o);
        }
      }
      h = table.host();
    }
    for (Schedulable p : wake) {
      h.wake(p);
    }
  }
}
