package dev.baton.procedure.store;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes waiting for the writer thread. The writer takes everything queued at that moment (up to a
 * bound) in one go and never waits for more to arrive: a lone write is written at once, and writes
 * that arrive while a drain is on disk form the next drain.
 */
final class GroupCommitQueue {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notEmpty = lock.newCondition();
  private final ArrayDeque<PendingWrite> queue = new ArrayDeque<>();
  private boolean closed;

  /** Queues a write; false if the queue is closed (the store stopped or failed). */
  boolean offer(PendingWrite write) {
    lock.lock();
    try {
      if (closed) {
        return false;
      }
      queue.addLast(write);
      notEmpty.signal();
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until a write is queued, then takes up to {@code maxWrites} of them in arrival order.
   * Returns an empty list once the queue is closed.
   */
  List<PendingWrite> take(int maxWrites) {
    lock.lock();
    try {
      while (queue.isEmpty() && !closed) {
        notEmpty.awaitUninterruptibly();
      }
      if (closed) {
        return List.of();
      }
      List<PendingWrite> drain = new ArrayList<>(Math.min(queue.size(), maxWrites));
      while (!queue.isEmpty() && drain.size() < maxWrites) {
        drain.add(queue.pollFirst());
      }
      return drain;
    } finally {
      lock.unlock();
    }
  }

  /** Closes the queue and returns the writes still queued, for the caller to fail. */
  List<PendingWrite> close() {
    lock.lock();
    try {
      closed = true;
      List<PendingWrite> rest = new ArrayList<>(queue);
      queue.clear();
      notEmpty.signalAll();
      return rest;
    } finally {
      lock.unlock();
    }
  }
}
