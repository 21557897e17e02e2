package dev.baton.consensus;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * Pipelined group commit into Raft log entries. An item that finds no entry on its way goes out at
 * once with whatever else is queued (up to {@code maxItems} and {@code maxBytes}); while fewer than
 * {@code maxEntriesInFlight} are on their way, the queued items go out as soon as there are {@code
 * minItemsToOverlap} of them (or {@code maxBytes}), or once the newest entry has been on its way
 * for its share of a commit (the recent commit time divided by {@code maxEntriesInFlight}), so
 * entries are staggered over a commit rather than sent one at a time when few writers each have one
 * write outstanding; when an entry completes, the items queued meanwhile go out as the next one.
 * Checked when an item is added and when an entry completes: no thread and no timer of its own.
 *
 * <p>With a timeout, every item fails with a {@link TimeoutException} if its entry's reply has not
 * come within the timeout of the item's {@link #add}: one timer per entry, not per item (a timer
 * per item cost the leader's apply thread a tenth of its time cancelling them), due when the
 * entry's oldest item's time is up; an item whose time ran out while it was queued fails when its
 * entry would be sent.
 *
 * @param <I> an item
 * @param <R> the result each item gets from its entry's reply
 */
final class EntryBatcher<I, R> {

  /** Bounds of one entry and of the pipeline. */
  record Limits(int maxItems, int maxBytes, int maxEntriesInFlight, int minItemsToOverlap) {
    static final int DEFAULT_MAX_ITEMS = 512;
    static final int DEFAULT_MAX_BYTES = 1 << 20;

    /**
     * Entries on their way at once, per batcher (the executor's store and the node's submissions
     * each have one). Every entry costs each member the same work whatever it carries (append,
     * replicate, fsync, apply, reply), so fewer entries in flight, each carrying more writes, leave
     * more CPU for the rest and commit sooner; too few make writes wait for a free slot longer than
     * the fuller entries save.
     */
    static final int DEFAULT_MAX_ENTRIES_IN_FLIGHT = 3;

    /**
     * Items an entry needs to go out while another is on its way (an entry that fills {@code
     * maxBytes} goes anyway; with nothing on its way, one item goes at once). Sending whatever is
     * queued each time a slot frees would send entries at the pipeline's pace, each carrying few
     * writes, and every member would pay each entry's fixed cost (append, replicate, fsync, apply,
     * reply) more often than needed; waiting for this many makes fewer, fuller entries at the same
     * load. What waits pays at most one commit more.
     */
    static final int DEFAULT_MIN_ITEMS_TO_OVERLAP = 96;

    /**
     * Weight of the newest commit time in the recent commit time (an exponentially weighted mean:
     * the newest counts 1/8), which paces staggered entries.
     */
    static final int COMMIT_TIME_WEIGHT = 8;

    static Limits defaults() {
      return new Limits(
          DEFAULT_MAX_ITEMS,
          DEFAULT_MAX_BYTES,
          DEFAULT_MAX_ENTRIES_IN_FLIGHT,
          DEFAULT_MIN_ITEMS_TO_OVERLAP);
    }
  }

  private record Item<I, R>(I value, int bytes, CompletableFuture<R> result, long addedAt) {}

  private final Function<List<I>, CompletableFuture<List<R>>> sender;
  private final ToIntFunction<I> sizeOf;
  private final Supplier<? extends Throwable> stoppedError;
  private final Limits limits;
  private final LatencyHistogram queued;
  private final LatencyHistogram committed;
  private final ArrayDeque<Item<I, R>> queue = new ArrayDeque<>();
  private long queuedBytes;

  /** By identity: an entry's equals and hashCode would walk its items. */
  private final Set<List<Item<I, R>>> inFlight = Collections.newSetFromMap(new IdentityHashMap<>());

  private final long timeoutNanos;
  private final LongSupplier nanoClock;
  private boolean stopped;

  /** When the newest entry was sent (nanoClock). */
  private long lastSentAt;

  /** The recent time from an entry's send to its reply, in nanoseconds; 0 until one completed. */
  private long commitNanos;

  /**
   * @param sender sends one entry made of the items; completes with one result per item, in order,
   *     or exceptionally to fail them all
   * @param sizeOf an item's size in bytes, counted against {@link Limits#maxBytes}
   * @param stoppedError the error of items refused or cut off by {@link #stop}
   */
  EntryBatcher(
      Function<List<I>, CompletableFuture<List<R>>> sender,
      ToIntFunction<I> sizeOf,
      Supplier<? extends Throwable> stoppedError,
      Limits limits) {
    this(
        sender,
        sizeOf,
        stoppedError,
        limits,
        null,
        new LatencyHistogram(),
        new LatencyHistogram(),
        System::nanoTime);
  }

  /**
   * @param timeout how long an item may wait for its entry's reply after {@link #add}; null for no
   *     bound
   * @param queued records, per item, the time from {@link #add} until its entry was sent
   * @param committed records, per entry, the time from sent until the sender's reply
   * @param nanoClock the monotonic clock of the timings, timeouts and staggering ({@code
   *     System::nanoTime})
   */
  EntryBatcher(
      Function<List<I>, CompletableFuture<List<R>>> sender,
      ToIntFunction<I> sizeOf,
      Supplier<? extends Throwable> stoppedError,
      Limits limits,
      Duration timeout,
      LatencyHistogram queued,
      LatencyHistogram committed,
      LongSupplier nanoClock) {
    this.sender = sender;
    this.sizeOf = sizeOf;
    this.stoppedError = stoppedError;
    this.limits = limits;
    this.timeoutNanos = timeout == null ? 0 : timeout.toNanos();
    this.queued = queued;
    this.committed = committed;
    this.nanoClock = nanoClock;
  }

  /** Queues an item; the future completes with its result once its entry is applied. */
  CompletableFuture<R> add(I value) {
    Item<I, R> item =
        new Item<>(
            value, sizeOf.applyAsInt(value), new CompletableFuture<>(), nanoClock.getAsLong());
    List<Item<I, R>> entry;
    synchronized (this) {
      if (stopped) {
        return CompletableFuture.failedFuture(stoppedError.get());
      }
      queue.addLast(item);
      queuedBytes += item.bytes();
      entry = takeEntryIfPipelineFree(item.addedAt());
    }
    if (entry != null) {
      send(entry);
    }
    return item.result();
  }

  /** Fails every queued and in-flight item and refuses new ones. Idempotent. */
  void stop() {
    stop(value -> false);
  }

  /**
   * Fails every queued item, and every in-flight one but those {@code awaitReply} picks, and
   * refuses new ones. The picked ones complete with their entry's reply (or its timeout): for an
   * item that must not be retried elsewhere while its entry may still be committed. Idempotent.
   */
  void stop(Predicate<I> awaitReply) {
    List<Item<I, R>> failed = new ArrayList<>();
    synchronized (this) {
      if (stopped) {
        return;
      }
      stopped = true;
      failed.addAll(queue);
      queue.clear();
      queuedBytes = 0;
      for (List<Item<I, R>> entry : inFlight) {
        for (Item<I, R> item : entry) {
          if (!awaitReply.test(item.value())) {
            failed.add(item);
          }
        }
      }
    }
    Throwable cause = stoppedError.get();
    for (Item<I, R> item : failed) {
      item.result().completeExceptionally(cause);
    }
  }

  private List<Item<I, R>> takeEntryIfPipelineFree(long now) {
    if (queue.isEmpty() || inFlight.size() >= limits.maxEntriesInFlight()) {
      return null;
    }
    if (!inFlight.isEmpty()
        && queue.size() < limits.minItemsToOverlap()
        && queuedBytes < limits.maxBytes()
        && !staggerDue(now)) {
      return null;
    }
    List<Item<I, R>> entry = new ArrayList<>();
    long bytes = 0;
    while (!queue.isEmpty() && entry.size() < limits.maxItems()) {
      Item<I, R> next = queue.peekFirst();
      if (!entry.isEmpty() && bytes + next.bytes() > limits.maxBytes()) {
        break;
      }
      entry.add(queue.pollFirst());
      bytes += next.bytes();
      queuedBytes -= next.bytes();
    }
    inFlight.add(entry);
    lastSentAt = now;
    return entry;
  }

  /** Whether the newest entry has been on its way for its share of the recent commit time. */
  private boolean staggerDue(long now) {
    return commitNanos > 0 && now - lastSentAt >= commitNanos / limits.maxEntriesInFlight();
  }

  /** Folds one entry's commit time into the recent commit time. */
  private void recordCommit(long nanos) {
    commitNanos =
        commitNanos == 0 ? nanos : commitNanos + (nanos - commitNanos) / Limits.COMMIT_TIME_WEIGHT;
  }

  private void send(List<Item<I, R>> entry) {
    List<I> values = new ArrayList<>(entry.size());
    long sentAt = nanoClock.getAsLong();
    for (Item<I, R> item : entry) {
      values.add(item.value());
      queued.recordNanos(sentAt - item.addedAt());
    }
    long left = timeoutNanos == 0 ? 0 : timeoutNanos - (sentAt - entry.get(0).addedAt());
    CompletableFuture<List<R>> sent;
    if (timeoutNanos != 0 && left <= 0) {
      sent = CompletableFuture.failedFuture(timedOut());
    } else {
      try {
        sent = sender.apply(values);
      } catch (RuntimeException e) {
        sent = CompletableFuture.failedFuture(e);
      }
      if (timeoutNanos != 0) {
        sent = sent.orTimeout(left, TimeUnit.NANOSECONDS);
      }
    }
    sent.whenComplete(
        (results, error) -> {
          long now = nanoClock.getAsLong();
          committed.recordNanos(now - sentAt);
          completed(entry, results, error, now, now - sentAt);
        });
  }

  private TimeoutException timedOut() {
    return new TimeoutException(
        "no reply within " + Duration.ofNanos(timeoutNanos) + " of the write being queued");
  }

  /**
   * Sends the next entry first, then completes the finished one's items: what their callers chain
   * on them (continuations, a caller's callbacks) runs on this thread and must not hold up writes
   * queued meanwhile.
   */
  private void completed(
      List<Item<I, R>> entry, List<R> results, Throwable error, long now, long commitTook) {
    List<Item<I, R>> next;
    synchronized (this) {
      inFlight.remove(entry);
      if (error == null) {
        recordCommit(commitTook);
      }
      next = stopped ? null : takeEntryIfPipelineFree(now);
    }
    if (next != null) {
      send(next);
    }
    if (error != null) {
      Throwable cause =
          error instanceof CompletionException && error.getCause() != null
              ? error.getCause()
              : error;
      for (Item<I, R> item : entry) {
        item.result().completeExceptionally(cause);
      }
    } else {
      for (int i = 0; i < entry.size(); i++) {
        entry.get(i).result().complete(results.get(i));
      }
    }
  }
}
