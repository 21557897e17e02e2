package dev.baton.procedure;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The seed's id lock: one worker at a time runs a procedure. Not owned by a thread: a step whose
 * store write is in flight keeps it until its worker finishes the step later. Never blocks: a
 * worker that finds it held asks the holder to queue the procedure again when it lets go (so a
 * wake-up, abort or timeout that queued it is not lost) and goes on with other work.
 */
final class IdLock {
  private static final int FREE = 0;
  private static final int HELD = 1;
  private static final int HELD_RERUN_ASKED = 2;

  private final AtomicInteger state = new AtomicInteger(FREE);

  /** Takes the lock; if it is held, asks for a rerun on release and returns false. */
  boolean acquireOrAskRerun() {
    while (true) {
      int s = state.get();
      if (s == FREE) {
        if (state.compareAndSet(FREE, HELD)) {
          return true;
        }
      } else if (s == HELD_RERUN_ASKED || state.compareAndSet(HELD, HELD_RERUN_ASKED)) {
        return false;
      }
    }
  }

  /** Takes the lock if it is free. */
  boolean tryAcquire() {
    return state.compareAndSet(FREE, HELD);
  }

  /** Whether a worker holds it (runs the procedure, or waits for its step's write). */
  boolean isHeld() {
    return state.get() != FREE;
  }

  /** Lets go; true if a rerun was asked meanwhile (the caller queues the procedure again). */
  boolean release() {
    return state.getAndSet(FREE) == HELD_RERUN_ASKED;
  }
}
