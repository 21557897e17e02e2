package dev.baton.procedure.scheduler;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;

/**
 * How a scheduler wakes the workers blocked in its {@code poll}: at most one woken worker on its
 * way at a time, and each worker that takes a procedure while more are queued wakes the next.
 *
 * <p>A plain blocking queue signals a waiter on every add. An executor's continuations arrive in
 * bursts (one per write of a group-committed entry), so a burst would wake as many parked workers
 * as it holds, most of which find the queue already drained by a worker back from its step: context
 * switches that cost CPU and do nothing. Here a burst wakes one worker; the workers join one by one
 * while procedures remain, as fast as each woken one actually runs, so steps that block (remote
 * calls) still get every worker and no-op steps keep as many running as there are cores.
 *
 * <p>Every method is called with the scheduler's lock held.
 */
final class PollerWakeups {
  private final Condition ready;
  private int waiting;
  private boolean wakeOnItsWay;

  PollerWakeups(ReentrantLock lock) {
    this.ready = lock.newCondition();
  }

  /** A procedure was queued: wakes a waiting worker unless one is already on its way. */
  void added() {
    if (waiting > 0 && !wakeOnItsWay) {
      wakeOnItsWay = true;
      ready.signal();
    }
  }

  /** A worker took a procedure and {@code remaining} are still queued: passes the wake on. */
  void taken(int remaining) {
    if (remaining > 0) {
      added();
    }
  }

  /**
   * Blocks up to {@code nanos}; returns the time left, as {@link Condition#awaitNanos}. Whatever
   * ended the wait (a wake, the timeout, an interrupt), no wake is on its way any more: this worker
   * looks at the queue next, or, interrupted, passes its wake on to another if {@code queued} still
   * holds procedures.
   */
  long await(long nanos, IntSupplier queued) throws InterruptedException {
    waiting++;
    boolean interrupted = false;
    try {
      return ready.awaitNanos(nanos);
    } catch (InterruptedException e) {
      interrupted = true;
      throw e;
    } finally {
      waiting--;
      wakeOnItsWay = false;
      if (interrupted) {
        taken(queued.getAsInt());
      }
    }
  }

  /** Wakes every waiting worker (the scheduler stops). */
  void wakeAll() {
    ready.signalAll();
  }
}
