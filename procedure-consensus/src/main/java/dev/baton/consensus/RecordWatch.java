package dev.baton.consensus;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Who waits for the next change of which record of the replicated table: a waiter takes a future
 * for a procedure id ({@link #next}), the apply thread reports each record it writes or deletes
 * ({@link #changed}), and a loaded snapshot wakes every waiter ({@link #changedAll}). Waiters are
 * woken on this watch's own thread, never on the apply thread, which only hands the wake-up over;
 * with no waiter a change costs one map lookup.
 */
final class RecordWatch {
  /** How long the wake-up thread lives with nothing to wake. */
  static final long IDLE_THREAD_SECONDS = 30;

  private final Map<Long, Set<CompletableFuture<Void>>> waiting = new ConcurrentHashMap<>();
  private final ThreadPoolExecutor wakeups;

  RecordWatch(String nodeId) {
    this.wakeups =
        new ThreadPoolExecutor(
            1,
            1,
            IDLE_THREAD_SECONDS,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            LeadershipManager.daemon("baton-" + nodeId + "-record-watch"));
    wakeups.allowCoreThreadTimeOut(true);
  }

  /** The thread waiters are woken on; their continuations may run there too (briefly). */
  Executor executor() {
    return wakeups;
  }

  /**
   * A future completed (on {@link #executor}) at the next change of record {@code procId}, or when
   * a snapshot replaces the table; {@link #forget} it if it is given up.
   */
  CompletableFuture<Void> next(long procId) {
    CompletableFuture<Void> f = new CompletableFuture<>();
    waiting.computeIfAbsent(procId, id -> ConcurrentHashMap.newKeySet()).add(f);
    return f;
  }

  /** Drops a waiter that stopped waiting (it timed out). */
  void forget(long procId, CompletableFuture<Void> f) {
    waiting.computeIfPresent(
        procId,
        (id, set) -> {
          set.remove(f);
          return set.isEmpty() ? null : set;
        });
  }

  /** Record {@code procId} was written or deleted; on the apply thread. */
  void changed(long procId) {
    if (waiting.isEmpty()) {
      return;
    }
    Set<CompletableFuture<Void>> woken = waiting.remove(procId);
    if (woken != null) {
      wakeups.execute(() -> woken.forEach(f -> f.complete(null)));
    }
  }

  /** The whole table was replaced (a snapshot loaded): every waiter looks again. */
  void changedAll() {
    for (Long id : Set.copyOf(waiting.keySet())) {
      changed(id);
    }
  }

  /** Waiters registered now (for tests and metrics). */
  int waiterCount() {
    return waiting.values().stream().mapToInt(Set::size).sum();
  }
}
