package dev.baton.procedure;

import java.util.PriorityQueue;
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

  private final PriorityQueue<Entry> queue =
      new PriorityQueue<>(
          (a, b) ->
              a.deadline() != b.deadline()
                  ? Long.compare(a.deadline(), b.deadline())
                  : Long.compare(a.seq(), b.seq()));
  private final LongSupplier clock;
  private long seq;

  TimeoutQueue(LongSupplier clock) {
    this.clock = clock;
  }

  synchronized void add(long deadline, Kind kind, Procedure<?> proc) {
    queue.add(new Entry(deadline, seq++, kind, proc));
    notifyAll();
  }

  /**
   * Waits until the earliest deadline passed and returns its entry; null if interrupted by {@link
   * #wakeAll} or if {@code maxWaitMillis} passed first.
   */
  synchronized Entry takeExpired(long maxWaitMillis) throws InterruptedException {
    long now = clock.getAsLong();
    long giveUp = now + maxWaitMillis;
    while (true) {
      Entry head = queue.peek();
      if (head != null && head.deadline() <= now) {
        return queue.poll();
      }
      long until = head == null ? giveUp : Math.min(giveUp, head.deadline());
      if (until <= now) {
        return null;
      }
      wait(until - now);
      now = clock.getAsLong();
      if (now >= giveUp && (queue.peek() == null || queue.peek().deadline() > now)) {
        return null;
      }
    }
  }

  synchronized int size() {
    return queue.size();
  }

  synchronized void clear() {
    queue.clear();
    notifyAll();
  }
}
