package dev.baton.procedure.scheduler;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The seed's plain queue: first in, first out, with continuations at the front. Blocked workers are
 * woken one at a time ({@link PollerWakeups}), not one per added procedure.
 */
public final class FifoScheduler implements ProcedureScheduler {
  private final ReentrantLock lock = new ReentrantLock();
  private final PollerWakeups wakeups = new PollerWakeups(lock);
  private final ArrayDeque<Schedulable> queue = new ArrayDeque<>();
  private volatile boolean running;

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    lock.lock();
    try {
      running = false;
      wakeups.wakeAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void addFront(Schedulable proc) {
    Objects.requireNonNull(proc, "proc");
    lock.lock();
    try {
      queue.addFirst(proc);
      wakeups.added();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void addBack(Schedulable proc) {
    Objects.requireNonNull(proc, "proc");
    lock.lock();
    try {
      queue.addLast(proc);
      wakeups.added();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Schedulable poll(long timeout, TimeUnit unit) throws InterruptedException {
    if (!running) {
      return null;
    }
    long nanos = unit.toNanos(timeout);
    lock.lockInterruptibly();
    try {
      while (queue.isEmpty()) {
        if (!running || nanos <= 0) {
          return null;
        }
        nanos = wakeups.await(nanos, queue::size);
      }
      if (!running) {
        return null;
      }
      Schedulable next = queue.pollFirst();
      wakeups.taken(queue.size());
      return next;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int size() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void clear() {
    lock.lock();
    try {
      queue.clear();
    } finally {
      lock.unlock();
    }
  }
}
