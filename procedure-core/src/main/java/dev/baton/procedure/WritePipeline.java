package dev.baton.procedure;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The store writes one worker handed over ({@link
 * dev.baton.procedure.store.ProcedureStore#writeAsync}) and, for each, what waits for it to be
 * durable. The worker goes on with other procedures meanwhile and runs each continuation itself,
 * oldest first, once its write is durable; the procedure whose step produced the write stays on the
 * worker (its id lock and its root stack's running count held) until then, so its next step, and
 * whatever depends on the step, starts only after the write is durable.
 *
 * <p>Used by one thread only (the worker that owns it); the futures complete on the store's
 * threads.
 */
final class WritePipeline {
  /** Writes one worker may have in flight; beyond this it waits for the oldest. */
  static final int MAX_IN_FLIGHT = 64;

  private static final ThreadLocal<WritePipeline> CURRENT = new ThreadLocal<>();

  /** What runs once a write is durable ({@code failure} null) or failed. */
  interface Continuation {
    void run(Throwable failure);
  }

  private record InFlight(CompletableFuture<Void> durable, Continuation then) {}

  private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();

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
    return inFlight.isEmpty();
  }

  boolean isFull() {
    return inFlight.size() >= MAX_IN_FLIGHT;
  }

  /** Hands over a write: {@code then} runs on this thread after {@code durable} completed. */
  void add(CompletableFuture<Void> durable, Continuation then) {
    inFlight.addLast(new InFlight(durable, then));
  }

  /** Runs the continuations of the writes completed now, oldest first, up to the first pending. */
  void runCompleted() {
    InFlight head;
    while ((head = inFlight.peekFirst()) != null && head.durable().isDone()) {
      inFlight.removeFirst();
      head.then().run(failureOf(head.durable()));
    }
  }

  /**
   * Waits up to {@code millis} for the oldest write to complete (runs nothing).
   *
   * @throws InterruptedException if the worker is interrupted (the executor stops)
   */
  void awaitOldest(long millis) throws InterruptedException {
    InFlight head = inFlight.peekFirst();
    if (head == null) {
      return;
    }
    try {
      head.durable().get(millis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // a failure is handed to the continuation; a timeout lets the worker look around
    }
  }

  /**
   * The worker stops: every continuation still waiting runs now with {@code cause} (or with its
   * write's outcome if that completed), so ids locks and running counts are given back.
   */
  void abandon(Throwable cause) {
    InFlight head;
    while ((head = inFlight.pollFirst()) != null) {
      Throwable failure = head.durable().isDone() ? failureOf(head.durable()) : cause;
      head.then().run(failure);
    }
  }

  private static Throwable failureOf(CompletableFuture<Void> done) {
    try {
      done.getNow(null);
      return null;
    } catch (java.util.concurrent.CompletionException e) {
      return e.getCause() != null ? e.getCause() : e;
    } catch (java.util.concurrent.CancellationException e) {
      return e;
    }
  }
}
