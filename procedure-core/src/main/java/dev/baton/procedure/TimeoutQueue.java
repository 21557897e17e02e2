package dev.baton.procedure;

import java.util.PriorityQueue;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

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

  /**
   * One deadline. {@code proc} is null for chores. A cancelled entry lets go of its procedure and
   * is dropped, unfired, when it reaches the head of the queue.
   */
  static final class Entry {
    private final long deadline;
    private final long seq;
    private final Kind kind;
    private Procedure<?> proc;
    private boolean cancelled;
    // the next entry of the same procedure (guarded by the queue)
    private Entry nextOfProc;

    private Entry(long deadline, long seq, Kind kind, Procedure<?> proc) {
      this.deadline = deadline;
      this.seq = seq;
      this.kind = kind;
      this.proc = proc;
    }

    long deadline() {
      return deadline;
    }

    Kind kind() {
      return kind;
    }

    Procedure<?> proc() {
      return proc;
    }

    /** The next deadline of the same procedure, or null. */
    Entry nextOfSameProcedure() {
      return nextOfProc;
    }
  }

  private final PriorityQueue<Entry> queue =
      new PriorityQueue<>(
          (a, b) ->
              a.deadline != b.deadline
                  ? Long.compare(a.deadline, b.deadline)
                  : Long.compare(a.seq, b.seq));
  private final LongSupplier clock;
  private long seq;
  private int cancelled;

  TimeoutQueue(LongSupplier clock) {
    this.clock = clock;
  }

  synchronized void add(long deadline, Kind kind, Procedure<?> proc) {
    Entry entry = new Entry(deadline, seq++, kind, proc);
    queue.add(entry);
    if (proc != null) {
      entry.nextOfProc = proc.timeoutChain().firstTimeoutEntry();
      proc.timeoutChain().setFirstTimeoutEntry(entry);
    }
    notifyAll();
  }

  /**
   * Drops the deadlines of {@code kind} of {@code proc}: what they waited for ended early. The
   * queue no longer holds the procedure for them.
   */
  synchronized void cancel(Procedure<?> proc, Kind kind) {
    unlink(proc, k -> k == kind);
  }

  /** Drops every deadline of {@code proc} (it finished). */
  synchronized void cancelAll(Procedure<?> proc) {
    unlink(proc, kind -> true);
  }

  private void unlink(Procedure<?> proc, Predicate<Kind> which) {
    Entry previous = null;
    for (Entry e = proc.timeoutChain().firstTimeoutEntry(); e != null; e = e.nextOfProc) {
      if (which.test(e.kind)) {
        if (previous == null) {
          proc.timeoutChain().setFirstTimeoutEntry(e.nextOfProc);
        } else {
          previous.nextOfProc = e.nextOfProc;
        }
        e.cancelled = true;
        e.proc = null;
        cancelled++;
      } else {
        previous = e;
      }
    }
  }

  /** Removes a fired entry from its procedure's chain. */
  private void forget(Entry fired) {
    Procedure<?> proc = fired.proc;
    if (proc == null) {
      return;
    }
    Entry previous = null;
    for (Entry e = proc.timeoutChain().firstTimeoutEntry();
        e != null;
        previous = e, e = e.nextOfProc) {
      if (e == fired) {
        if (previous == null) {
          proc.timeoutChain().setFirstTimeoutEntry(e.nextOfProc);
        } else {
          previous.nextOfProc = e.nextOfProc;
        }
        return;
      }
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
      Entry head = liveHead();
      if (head != null && head.deadline <= now) {
        queue.poll();
        forget(head);
        return head;
      }
      long until = head == null ? giveUp : Math.min(giveUp, head.deadline);
      if (until <= now) {
        return null;
      }
      wait(until - now);
      now = clock.getAsLong();
      Entry next = liveHead();
      if (now >= giveUp && (next == null || next.deadline > now)) {
        return null;
      }
    }
  }

  /** The earliest entry that was not cancelled; cancelled ones before it are dropped. */
  private Entry liveHead() {
    Entry head;
    while ((head = queue.peek()) != null && head.cancelled) {
      queue.poll();
      cancelled--;
    }
    return head;
  }

  /** Deadlines that may still fire (cancelled ones not counted). */
  synchronized int size() {
    return queue.size() - cancelled;
  }

  synchronized void clear() {
    for (Entry e : queue) {
      if (e.proc != null) {
        e.proc.timeoutChain().setFirstTimeoutEntry(null);
      }
    }
    queue.clear();
    cancelled = 0;
    notifyAll();
  }
}
