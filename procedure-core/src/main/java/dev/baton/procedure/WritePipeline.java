package dev.baton.procedure;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The store writes one worker handed over ({@link
 * dev.baton.procedure.store.ProcedureStore#writeAsync}) and, for each, what waits for it to be
 * durable. The worker goes on with other procedures meanwhile; each continuation runs on the
 * executor's completion thread once its write is durable, never on the worker, so a worker that
 * then spends long in a step (a slow or stalled remote call) holds back no other procedure. The
 * procedure whose step produced the write stays held (its id lock and its root stack's running
 * count) until its continuation ran, so its next step, and whatever depends on the step, starts
 * only after the write is durable.
 *
 * <p>Bound to one worker thread; at most {@link #MAX_IN_FLIGHT} of its writes are in flight.
 */
final class WritePipeline {
  /** Writes one worker may have in flight; beyond this it waits for one to complete. */
  static final int MAX_IN_FLIGHT = 64;

  private static final ThreadLocal<WritePipeline> CURRENT = new ThreadLocal<>();

  /** What runs once a write is durable ({@code failure} null) or failed. */
  interface Continuation {
    void run(Throwable failure);
  }

  private final Semaphore slots = new Semaphore(MAX_IN_FLIGHT);
  private final Executor completions;

  /**
   * @param completions runs the continuations (one thread keeps them in completion order); a
   *     continuation it refuses (the executor stopped) runs on the thread completing the write
   */
  WritePipeline(Executor completions) {
    this.completions = completions;
  }

  /** The pipeline of the calling worker, or null on any other thread (writes are synchronous). */
  static WritePipeline current() {
    return CURRENT.get();
  }

  /** Makes this the pipeline of the calling thread. */
  void bindToCurrentThread() {
    CURRENT.set(this);
  }

  void unbind() {
    CURRENT.remove();
  }

  boolean isEmpty() {
    return slots.availablePermits() == MAX_IN_FLIGHT;
  }

  boolean isFull() {
    return slots.availablePermits() == 0;
  }

  /**
   * Hands over a write: {@code then} runs on the completion thread after {@code durable} completed.
   * Waits for a slot if {@link #MAX_IN_FLIGHT} writes are in flight.
   */
  void add(CompletableFuture<Void> durable, Continuation then) {
    slots.acquireUninterruptibly();
    durable.whenComplete((v, e) -> dispatch(() -> finish(durable, then)));
  }

  private void dispatch(Runnable r) {
    try {
      completions.execute(r);
    } catch (RejectedExecutionException e) {
      r.run(); // stopping: release what the write held, here
    }
  }

  private void finish(CompletableFuture<Void> durable, Continuation then) {
    try {
      then.run(failureOf(durable));
    } finally {
      slots.release();
    }
  }

  /**
   * Waits up to {@code millis} for a slot to free up (runs nothing).
   *
   * @throws InterruptedException if the worker is interrupted (the executor stops)
   */
  void awaitSlot(long millis) throws InterruptedException {
    if (slots.tryAcquire(millis, TimeUnit.MILLISECONDS)) {
      slots.release();
    }
  }

  private static Throwable failureOf(CompletableFuture<Void> done) {
    try {
      done.getNow(null);
      return null;
    } catch (CompletionException e) {
      return e.getCause() != null ? e.getCause() : e;
    } catch (CancellationException e) {
      return e;
    }
  }
}
