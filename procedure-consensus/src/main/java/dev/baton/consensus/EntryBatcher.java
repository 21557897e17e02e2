package dev.baton.consensus;

import com.google.protobuf.ByteString;
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
import java.util.function.Supplier;

/**
 * Pipelined group commit into Raft log entries. An item that finds fewer than {@code
 * maxEntriesInFlight} entries on their way takes every queued item (up to {@code maxItems} and
 * {@code maxBytes}) into one entry; when an entry completes, the items queued meanwhile go out as
 * the next one. No thread of its own: a lone item is sent at once.
 *
 * <p>With a timeout, every item fails with a {@link TimeoutException} if its entry's reply has not
 * come within the timeout of the item's {@link #add}: one timer per entry, not per item (a timer
 * per item cost the leader's apply thread a tenth of its time cancelling them), due when the
 * entry's oldest item's time is up; an item whose time ran out while it was queued fails when its
 * entry would be sent.
 *
 * @param <R> the result each item gets from its entry's reply
 */
final class EntryBatcher<R> {

  /** Bounds of one entry and of the pipeline. */
  record Limits(int maxItems, int maxBytes, int maxEntriesInFlight) {
    static final int DEFAULT_MAX_ITEMS = 512;
    static final int DEFAULT_MAX_BYTES = 1 << 20;

    /**
     * Entries on their way at once, per batcher (the executor's store and the node's submissions
     * each have one). Every entry costs each member the same work whatever it carries (append,
     * replicate, fsync, apply, reply), so fewer entries in flight, each carrying more writes, leave
     * more CPU for the rest and commit sooner: in the consensus benchmark (3 nodes on 2 cores), 3
     * instead of 8 carried 94 instead of 40 writes per entry at the peak, which was no lower, and
     * at half the peak the Raft commit p50 fell from 5.2 to 3.6-4.1 ms and the submit-to-done p50
     * from 27 to 19-24 ms. Fewer than 3 made writes wait for a free slot longer than they saved.
     */
    static final int DEFAULT_MAX_ENTRIES_IN_FLIGHT = 3;

    static Limits defaults() {
      return new Limits(DEFAULT_MAX_ITEMS, DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES_IN_FLIGHT);
    }
  }

  private record Item<R>(ByteString bytes, CompletableFuture<R> result, long addedAt) {}

  private final Function<List<ByteString>, CompletableFuture<List<R>>> sender;
  private final Supplier<? extends Throwable> stoppedError;
  private final Limits limits;
  private final LatencyHistogram queued;
  private final LatencyHistogram committed;
  private final ArrayDeque<Item<R>> queue = new ArrayDeque<>();

  /** By identity: an entry's equals and hashCode would walk its items. */
  private final Set<List<Item<R>>> inFlight = Collections.newSetFromMap(new IdentityHashMap<>());

  private final long timeoutNanos;
  private boolean stopped;

  /**
   * @param sender sends one entry made of the items' bytes; completes with one result per item, in
   *     order, or exceptionally to fail them all
   * @param stoppedError the error of items refused or cut off by {@link #stop}
   */
  EntryBatcher(
      Function<List<ByteString>, CompletableFuture<List<R>>> sender,
      Supplier<? extends Throwable> stoppedError,
      Limits limits) {
    this(sender, stoppedError, limits, null, new LatencyHistogram(), new LatencyHistogram());
  }

  /**
   * @param timeout how long an item may wait for its entry's reply after {@link #add}; null for no
   *     bound
   * @param queued records, per item, the time from {@link #add} until its entry was sent
   * @param committed records, per entry, the time from sent until the sender's reply
   */
  EntryBatcher(
      Function<List<ByteString>, CompletableFuture<List<R>>> sender,
      Supplier<? extends Throwable> stoppedError,
      Limits limits,
      Duration timeout,
      LatencyHistogram queued,
      LatencyHistogram committed) {
    this.sender = sender;
    this.stoppedError = stoppedError;
    this.limits = limits;
    this.timeoutNanos = timeout == null ? 0 : timeout.toNanos();
    this.queued = queued;
    this.committed = committed;
  }

  /** Queues an item; the future completes with its result once its entry is applied. */
  CompletableFuture<R> add(ByteString bytes) {
    Item<R> item = new Item<>(bytes, new CompletableFuture<>(), System.nanoTime());
    List<Item<R>> entry;
    synchronized (this) {
      if (stopped) {
        return CompletableFuture.failedFuture(stoppedError.get());
      }
      queue.addLast(item);
      entry = takeEntryIfPipelineFree();
    }
    if (entry != null) {
      send(entry);
    }
    return item.result();
  }

  /** Fails every queued and in-flight item and refuses new ones. Idempotent. */
  void stop() {
    List<Item<R>> failed = new ArrayList<>();
    synchronized (this) {
      if (stopped) {
        return;
      }
      stopped = true;
      failed.addAll(queue);
      queue.clear();
      for (List<Item<R>> entry : inFlight) {
        failed.addAll(entry);
      }
      inFlight.clear();
    }
    Throwable cause = stoppedError.get();
    for (Item<R> item : failed) {
      item.result().completeExceptionally(cause);
    }
  }

  private List<Item<R>> takeEntryIfPipelineFree() {
    if (queue.isEmpty() || inFlight.size() >= limits.maxEntriesInFlight()) {
      return null;
    }
    List<Item<R>> entry = new ArrayList<>();
    long bytes = 0;
    while (!queue.isEmpty() && entry.size() < limits.maxItems()) {
      Item<R> next = queue.peekFirst();
      if (!entry.isEmpty() && bytes + next.bytes().size() > limits.maxBytes()) {
        break;
      }
      entry.add(queue.pollFirst());
      bytes += next.bytes().size();
    }
    inFlight.add(entry);
    return entry;
  }

  private void send(List<Item<R>> entry) {
    List<ByteString> bytes = new ArrayList<>(entry.size());
    long sentAt = System.nanoTime();
    for (Item<R> item : entry) {
      bytes.add(item.bytes());
      queued.recordNanos(sentAt - item.addedAt());
    }
    long left = timeoutNanos == 0 ? 0 : timeoutNanos - (sentAt - entry.get(0).addedAt());
    CompletableFuture<List<R>> sent;
    if (timeoutNanos != 0 && left <= 0) {
      sent = CompletableFuture.failedFuture(timedOut());
    } else {
      try {
        sent = sender.apply(bytes);
      } catch (RuntimeException e) {
        sent = CompletableFuture.failedFuture(e);
      }
      if (timeoutNanos != 0) {
        sent = sent.orTimeout(left, TimeUnit.NANOSECONDS);
      }
    }
    sent.whenComplete(
        (results, error) -> {
          committed.recordNanos(System.nanoTime() - sentAt);
          completed(entry, results, error);
        });
  }

  private TimeoutException timedOut() {
    return new TimeoutException(
        "no reply within " + Duration.ofNanos(timeoutNanos) + " of the write being queued");
  }

  private void completed(List<Item<R>> entry, List<R> results, Throwable error) {
    List<Item<R>> next;
    synchronized (this) {
      inFlight.remove(entry);
      next = stopped ? null : takeEntryIfPipelineFree();
    }
    if (error != null) {
      Throwable cause =
          error instanceof CompletionException && error.getCause() != null
              ? error.getCause()
              : error;
      for (Item<R> item : entry) {
        item.result().completeExceptionally(cause);
      }
    } else {
      for (int i = 0; i < entry.size(); i++) {
        entry.get(i).result().complete(results.get(i));
      }
    }
    if (next != null) {
      send(next);
    }
  }
}
