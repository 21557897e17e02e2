package dev.baton.procedure;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * Deadlines of procedures, earliest first: WAITING_TIMEOUT waits, procedure-level timeouts, retry
 * backoffs and periodic chores. Pure data structure over an injected clock; the {@link
 * TimeoutExecutorThread} waits on it.
 */
final class TimeoutQueue {

  /** What to do when a deadline passes. */
  enum Kind {
    /** A WAITING_TIMEOUT wait ended. */
    WAIT_EXPIRED,
    /** The procedure-level timeout (from submission) passed. */
    PROCEDURE_DEADLINE,
    /** A failed step whose state cannot be rolled back is retried. */
    RETRY_STEP,
    /** A rollback step that threw is retried. */
    RETRY_ROLLBACK,
    /** Periodic: remove completed procedures past their retention. */
    CLEAN_COMPLETED,
    /** A procedure parked on a lock waited longer than its request's wait timeout. */
    LOCK_WAIT_EXPIRED
  }

  /** One deadline. {@code proc} is null for chores. */
  record Entry(long deadline, long seq, Kind kind, Procedure<?> proc) {}

  private final TreeSet<Entry> queue =
      new TreeSet<>(
          (a, b) ->
              a.deadline() != b.deadline()
                  ? Long.compare(a.deadline(), b.deadline())
                  : Long.compare(a.seq(), b.seq()));
  // The entries of each procedure, so a wait that ends early drops its deadline (and the queue
  // stops holding the procedure) at once instead of when the deadline passes.
  private final Map<Procedure<?>, List<Entry>> byProcedure = new IdentityHashMap<>();
  private final LongSupplier clock;
  private long seq;

  TimeoutQueue(LongSupplier clock) {
    this.clock = clock;
  }

  synchronized void add(long deadline, Kind kind, Procedure<?> proc) {
    Entry entry = new Entry(deadline, seq++, kind, proc);
    queue.add(entry);
    if (proc != null) {
      byProcedure.computeIfAbsent(proc, p -> new ArrayList<>(1)).add(entry);
    }
    notifyAll();
  }

  /** Drops the deadlines of {@code kind} of {@code proc}: what they waited for ended early. */
  synchronized void cancel(Procedure<?> proc, Kind kind) {
    List<Entry> entries = byProcedure.get(proc);
    if (entries == null) {
      return;
    }
    entries.removeIf(
        e -> {
          if (e.kind() == kind) {
            queue.remove(e);
            return true;
          }
          return false;
        });
    if (entries.isEmpty()) {
      byProcedure.remove(proc);
    }
  }

  /** Drops every deadline of {@code proc} (it finished). */
  synchronized void cancelAll(Procedure<?> proc) {
    List<Entry> entries = byProcedure.remove(proc);
    if (entries != null) {
      entries.forEach(queue::remove);
    }
  }

  /**
   * Waits until the earliest deadline passed and returns its entry; null if {@code maxWaitMillis}
   * passed first.
   */
  synchronized Entry takeExpired(long maxWaitMillis) throws InterruptedException {
    long now = clock.getAsLong();
    long giveUp = now + maxWaitMillis;
    while (true) {
      Entry head = queue.isEmpty() ? null : queue.first();
      if (head != null && head.deadline() <= now) {
        queue.pollFirst();
        forget(head);
        return head;
      }
      long until = head == null ? giveUp : Math.min(giveUp, head.deadline());
      if (until <= now) {
        return null;
      }
      wait(until - now);
      now = clock.getAsLong();
      if (now >= giveUp && (queue.isEmpty() || queue.first().deadline() > now)) {
        return null;
      }
    }
  }

  private void forget(Entry entry) {
    if (entry.proc() == null) {
      return;
    }
    List<Entry> entries = byProcedure.get(entry.proc());
    if (entries != null && entries.remove(entry) && entries.isEmpty()) {
      byProcedure.remove(entry.proc());
    }
  }

  synchronized int size() {
    return queue.size();
  }

  synchronized void clear() {
    queue.clear();
    byProcedure.clear();
    notifyAll();
  }
}
