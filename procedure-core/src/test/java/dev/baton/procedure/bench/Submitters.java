package dev.baton.procedure.bench;

import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Client threads that submit procedures to an executor until a count is reached or a deadline
 * passes. Each submission first takes a permit of the environment's in-flight window, so the
 * submitters run ahead of the workers by at most the window.
 */
final class Submitters {
  /** Threads submitting procedures. */
  static final int THREADS = 2;

  private final ProcedureExecutor<BenchEnv> executor;
  private final BenchEnv env;
  private final Supplier<Procedure<BenchEnv>> factory;
  private final long limit;
  private final long deadlineNanos;
  private final boolean keepIds;
  private final AtomicLong tickets = new AtomicLong();
  private final AtomicLong submitted = new AtomicLong();
  private final AtomicReference<Throwable> error = new AtomicReference<>();
  private final List<long[]> ids = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  // One permit per submission that completed (durable and queued, or failed).
  private final Semaphore durable = new Semaphore(0);

  /**
   * @param limit procedures to submit at most
   * @param deadlineNanos {@link System#nanoTime()} after which no submission starts
   * @param keepIds whether to remember the ids (for waiting on each one later)
   */
  Submitters(
      ProcedureExecutor<BenchEnv> executor,
      BenchEnv env,
      Supplier<Procedure<BenchEnv>> factory,
      long limit,
      long deadlineNanos,
      boolean keepIds) {
    this.executor = executor;
    this.env = env;
    this.factory = factory;
    this.limit = limit;
    this.deadlineNanos = deadlineNanos;
    this.keepIds = keepIds;
  }

  void start() {
    for (int t = 0; t < THREADS; t++) {
      long[] mine = keepIds ? new long[Math.toIntExact(limit)] : null; // one thread may take all
      ids.add(mine);
      Thread thread = new Thread(() -> submitLoop(mine), "bench-submitter-" + t);
      threads.add(thread);
      thread.start();
    }
  }

  /**
   * Submits without waiting for each submission to be durable ({@link
   * ProcedureExecutor#submitAsync}): the in-flight window bounds how many are outstanding.
   */
  private void submitLoop(long[] mine) {
    int n = 0;
    try {
      while (tickets.getAndIncrement() < limit && System.nanoTime() - deadlineNanos < 0) {
        env.window.acquire();
        int slot = n++;
        CompletableFuture<Long> id = executor.submitAsync(factory.get(), null);
        submitted.incrementAndGet();
        id.whenComplete(
            (procId, failure) -> {
              if (failure != null) {
                error.compareAndSet(null, failure);
              } else if (mine != null) {
                mine[slot] = procId;
              }
              durable.release();
            });
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      error.compareAndSet(null, e);
    }
  }

  /** Waits for the submitter threads and their submissions; rethrows what failed one. */
  void join() throws InterruptedException {
    for (Thread t : threads) {
      t.join();
    }
    durable.acquire(Math.toIntExact(submitted.get())); // every submission completed
    Throwable e = error.get();
    if (e != null) {
      throw new IllegalStateException("a submitter failed: " + e, e);
    }
  }

  long submitted() {
    return submitted.get();
  }

  /** The ids submitted, if kept ({@code 0} entries past each thread's count). */
  List<long[]> ids() {
    return ids;
  }
}
