package dev.baton.procedure.scheduler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Caps how many procedures of one type run at once (e.g. at most 10 region merges, 10 splits and
 * 100 moves). Configured with {@code ProcedureExecutor.Builder.limit(type, max)}.
 *
 * <h2>What counts as running</h2>
 *
 * A procedure of a limited type holds a slot <b>while one of its steps executes on a worker</b>:
 * the executor takes the slot after the procedure's locks are granted and right before its {@code
 * execute} (the step), and gives it back when the step's outcome is persisted and its successor
 * queued. Nothing else counts: a procedure queued for a worker, parked on a lock, waiting for its
 * children, suspended, in a timed wait or retry backoff, or rolling back holds no slot.
 *
 * <p>Why per step: it is the only interval in which a procedure both occupies a worker and acts on
 * the world, and it can be proved by looking at one place: the slot is taken and released around
 * the step, in a {@code try/finally}, under this class's monitor, and a slot is granted only while
 * fewer than {@code limit} are in use. No count survives a restart because none needs to: when an
 * executor stops, its workers are joined before a new executor (with a new, empty limiter) runs a
 * step, so the cap holds across restarts without persisting anything. It also cannot deadlock: slot
 * holders are executing steps, which never wait for locks or for other procedures, so a procedure
 * waiting for a slot (possibly holding locks across steps) always gets one once a step ends. The
 * price: the cap bounds concurrent steps, not operations in flight between steps (a region move
 * waiting for its data to catch up holds no slot); bound those with a lock on the resource they
 * use.
 *
 * <p>A procedure over the limit waits in a FIFO queue of its type without holding a worker. When a
 * slot is freed it is handed to the head of the queue (reserved for it, counted against the cap, so
 * a newcomer cannot take it first) and the executor queues that procedure to run. If the procedure
 * then parks on a lock instead, the executor gives the reserved slot to the next waiter.
 *
 * <p>Thread-safe; no threads, no clock: the executor wakes the procedure {@link #release} returns.
 */
public final class ProcedureLimiter {
  private final Map<String, Slots> byType;

  /**
   * @param limits the cap per procedure type; types not named are not limited
   * @throws IllegalArgumentException for a null or empty type or a cap below 1
   */
  public ProcedureLimiter(Map<String, Integer> limits) {
    Map<String, Slots> m = new TreeMap<>();
    limits.forEach(
        (type, max) -> {
          checkLimit(type, max);
          m.put(type, new Slots(type, max));
        });
    this.byType = Collections.unmodifiableMap(m);
  }

  /** Checks one limit setting; the message says what is allowed. */
  public static void checkLimit(String type, Integer max) {
    if (type == null || type.isEmpty()) {
      throw new IllegalArgumentException("a limit needs a procedure type name, got '" + type + "'");
    }
    if (max == null || max < 1) {
      throw new IllegalArgumentException(
          "limit of procedure type '" + type + "' must be >= 1, got " + max);
    }
  }

  /** Whether procedures of {@code type} are limited. */
  public boolean isLimited(String type) {
    return type != null && byType.containsKey(type);
  }

  /** The cap of {@code type}, or empty if not limited. */
  public Optional<Integer> limit(String type) {
    Slots s = type == null ? null : byType.get(type);
    return s == null ? Optional.empty() : Optional.of(s.limit);
  }

  /**
   * Takes a slot for a step of {@code proc} (or uses the one reserved for it). Returns false if
   * none is free: {@code proc} then waits in its type's queue (keeping its place if it already did)
   * until {@link #release} hands it a slot.
   */
  public boolean tryAcquire(Schedulable proc) {
    Slots s = byType.get(proc.getType());
    if (s == null) {
      return true;
    }
    synchronized (s) {
      Boolean running = s.holders.get(proc);
      if (running != null) {
        if (!running) {
          s.holders.put(proc, Boolean.TRUE); // the slot reserved for it
        }
        return true;
      }
      if (s.holders.size() < s.limit && s.waiters.isEmpty()) {
        s.holders.put(proc, Boolean.TRUE);
        return true;
      }
      if (s.waiting.add(proc)) {
        s.waiters.addLast(proc);
      }
      return false;
    }
  }

  /**
   * Gives back the slot of {@code proc} (or takes it off the wait queue). Returns the procedure the
   * freed slot was handed to, which the caller must queue to run; null if none.
   */
  public Schedulable release(Schedulable proc) {
    Slots s = byType.get(proc.getType());
    if (s == null) {
      return null;
    }
    synchronized (s) {
      if (s.holders.remove(proc) == null) {
        if (s.waiting.remove(proc)) {
          s.waiters.remove(proc);
        }
        return null;
      }
      Schedulable next = s.waiters.pollFirst();
      if (next == null) {
        return null;
      }
      s.waiting.remove(next);
      s.holders.put(next, Boolean.FALSE);
      return next;
    }
  }

  /** Whether {@code proc} waits for a slot. */
  public boolean isWaiting(Schedulable proc) {
    Slots s = byType.get(proc.getType());
    if (s == null) {
      return false;
    }
    synchronized (s) {
      return s.waiting.contains(proc);
    }
  }

  /** Slots of {@code type} in use (running or reserved); 0 for a type without limit. */
  public int inUse(String type) {
    Slots s = byType.get(type);
    if (s == null) {
      return 0;
    }
    synchronized (s) {
      return s.holders.size();
    }
  }

  /** Why {@code proc} waits, e.g. "limit of type MigrateRegion is full: 100 of 100 slots ...". */
  public Optional<String> waitReason(Schedulable proc) {
    return slotWait(proc).map(SlotWait::describe);
  }

  /** The full limit {@code proc} waits on; empty if it does not wait for a slot. */
  public Optional<SlotWait> slotWait(Schedulable proc) {
    Slots s = byType.get(proc.getType());
    if (s == null) {
      return Optional.empty();
    }
    synchronized (s) {
      if (!s.waiting.contains(proc)) {
        return Optional.empty();
      }
      int ahead = 0;
      for (Schedulable p : s.waiters) {
        if (p == proc) {
          break;
        }
        ahead++;
      }
      return Optional.of(new SlotWait(s.type, s.limit, s.holders.size(), ahead));
    }
  }

  /** Every limited type with its running, reserved and waiting procedures. */
  public List<LimitInfo> snapshot() {
    List<LimitInfo> out = new ArrayList<>(byType.size());
    for (Slots s : byType.values()) {
      synchronized (s) {
        List<Long> running = new ArrayList<>();
        List<Long> reserved = new ArrayList<>();
        s.holders.forEach((p, r) -> (r ? running : reserved).add(p.getProcId()));
        running.sort(null);
        reserved.sort(null);
        List<Long> waiting = new ArrayList<>(s.waiters.size());
        for (Schedulable p : s.waiters) {
          waiting.add(p.getProcId());
        }
        out.add(new LimitInfo(s.type, s.limit, running, reserved, waiting));
      }
    }
    return List.copyOf(out);
  }

  /** The slots of one type. Guarded by its own monitor. */
  private static final class Slots {
    final String type;
    final int limit;
    // holder -> true while its step runs, false while the slot is reserved for it
    final Map<Schedulable, Boolean> holders = new IdentityHashMap<>();
    final ArrayDeque<Schedulable> waiters = new ArrayDeque<>();
    final Set<Schedulable> waiting = Collections.newSetFromMap(new IdentityHashMap<>());

    Slots(String type, int limit) {
      this.type = type;
      this.limit = limit;
    }
  }
}
