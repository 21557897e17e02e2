package dev.baton.consensus;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Futures that complete once the state machine has applied a log index: a follower's read waits
 * here for the leader's read index ({@link FollowerReads}). The state machine reports each new
 * applied index ({@link #reached}); a future completes on the thread that reports it (the apply
 * thread), so whoever waits must continue on a thread of its own.
 *
 * <p>Ratis' own {@code BaseStateMachine.queryStale} wait is not used: in Ratis 3.3.0 it completes
 * its futures only when the applied index is reported again unchanged.
 */
final class AppliedWaits {
  private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

  /** Waiting futures by the index they wait for; guarded by {@code this}. */
  private final NavigableMap<Long, CompletableFuture<Void>> waiting = new TreeMap<>();

  private volatile long applied = -1;

  /**
   * Whether {@link #waiting} may hold a future: written before {@link #applied} is read in {@link
   * #await}, read after it is written in {@link #reached}, so one of the two sees the other.
   */
  private volatile boolean anyWaiting;

  /** The last applied index reported. */
  long applied() {
    return applied;
  }

  /** How many indexes reads wait for. */
  synchronized int waiting() {
    return waiting.size();
  }

  /** A future that completes once {@code index} is applied (at once if it is already). */
  CompletableFuture<Void> await(long index) {
    if (applied >= index) {
      return DONE;
    }
    CompletableFuture<Void> wait;
    synchronized (this) {
      wait = waiting.computeIfAbsent(index, i -> new CompletableFuture<>());
      anyWaiting = true;
    }
    if (applied >= index) {
      completeUpTo(applied);
    }
    return wait;
  }

  /** Reports that every index up to {@code index} is applied; indexes only grow. */
  void reached(long index) {
    applied = index;
    if (anyWaiting) {
      completeUpTo(index);
    }
  }

  private void completeUpTo(long index) {
    List<CompletableFuture<Void>> due;
    synchronized (this) {
      Map<Long, CompletableFuture<Void>> head = waiting.headMap(index, true);
      if (head.isEmpty()) {
        return;
      }
      due = new ArrayList<>(head.values());
      head.clear();
      anyWaiting = !waiting.isEmpty();
    }
    for (CompletableFuture<Void> f : due) {
      f.complete(null);
    }
  }
}
