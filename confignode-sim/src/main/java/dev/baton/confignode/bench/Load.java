package dev.baton.confignode.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntToLongFunction;

/**
 * How the bench puts load on the cluster: {@code clients} closed-loop clients (each starts its next
 * operation when the last one answered), or an open loop that starts operations at a fixed rate
 * whatever their answers (each one's latency counted from when it was due, so a cluster that falls
 * behind shows it in the latencies rather than hiding it by slowing the load).
 */
final class Load implements AutoCloseable {
  /**
   * Operations of the open loop started and not yet answered at most; beyond, the pacing waits (and
   * the latencies, counted from when each operation was due, grow).
   */
  static final int MAX_OUTSTANDING = 1024;

  /**
   * The open loop's client threads, each with its own kept-alive connection at most: operations due
   * while all are busy wait in a queue, their latency counted from when they were due. Enough for
   * the rates the bench reaches (500/s at 60 ms is 30 in flight) with room for a slow moment. With
   * a thread per operation a backlog would cost more than the load: at 500/s, once answers take a
   * second, a thousand threads each open a connection (a TLS handshake on the leader too) that the
   * idle bound closes again later, so the bench's CPU per procedure grows with the backlog.
   */
  static final int OPEN_LOOP_CLIENTS = 128;

  private static final double NANOS_PER_SECOND = 1e9;

  /**
   * What one operation reports.
   *
   * @param procId the procedure it ran, or 0
   * @param submitNanos how long the submission's answer took, or 0
   * @param success whether it ended as it should
   */
  record Sample(long procId, long submitNanos, boolean success) {}

  /** One operation. */
  @FunctionalInterface
  interface Op {
    Sample run() throws IOException, InterruptedException;
  }

  /** One operation's sample and latency (nanoseconds, from its start or its due time). */
  private record Timed(Sample sample, long latencyNanos) {}

  /**
   * What a run measured.
   *
   * @param count operations done
   * @param wallSeconds from the first start to the last answer
   * @param latencies each operation's latency
   * @param submitLatencies each operation's submission answer's
   * @param failed operations that did not end as they should
   * @param lastId the highest procedure id seen
   */
  record Run(
      int count,
      double wallSeconds,
      Percentiles latencies,
      Percentiles submitLatencies,
      int failed,
      long lastId) {
    static Run of(List<Timed> timed, long startNanos) {
      double wall = (System.nanoTime() - startNanos) / NANOS_PER_SECOND;
      long[] latencies = timed.stream().mapToLong(Timed::latencyNanos).toArray();
      long[] submits = timed.stream().mapToLong(t -> t.sample().submitNanos()).toArray();
      int failed = (int) timed.stream().filter(t -> !t.sample().success()).count();
      long lastId = timed.stream().mapToLong(t -> t.sample().procId()).max().orElse(0);
      return new Run(
          timed.size(),
          wall,
          Percentiles.ofNanos(latencies),
          Percentiles.ofNanos(submits),
          failed,
          lastId);
    }
  }

  private final int clients;
  private final double rate;

  /**
   * The open loop's {@link #OPEN_LOOP_CLIENTS} threads: kept from one open-loop run to the next, so
   * that a warm-up leaves the threads (and their connections) a measured run needs.
   */
  private final ExecutorService openLoopThreads = Executors.newFixedThreadPool(OPEN_LOOP_CLIENTS);

  Load(int clients, double rate) {
    this.clients = clients;
    this.rate = rate;
  }

  /** Operations from the closed-loop clients while {@code more} says so, asked before each. */
  private Run closedLoop(BooleanSupplier more, Op op) throws IOException, InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long start = System.nanoTime();
    try {
      List<Future<List<Timed>>> futures = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        futures.add(
            pool.submit(
                () -> {
                  List<Timed> mine = new ArrayList<>();
                  while (more.getAsBoolean()) {
                    long t0 = System.nanoTime();
                    Sample s = op.run();
                    mine.add(new Timed(s, System.nanoTime() - t0));
                  }
                  return mine;
                }));
      }
      List<Timed> all = new ArrayList<>();
      for (Future<List<Timed>> f : futures) {
        try {
          all.addAll(f.get());
        } catch (ExecutionException e) {
          throw new IOException("a bench client failed: " + e.getCause().getMessage(), e);
        }
      }
      return Run.of(all, start);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Operations from the closed-loop clients until {@code time} has passed (each client stops at its
   * first answer after it).
   */
  Run closedLoopFor(Duration time, Op op) throws IOException, InterruptedException {
    long end = System.nanoTime() + time.toNanos();
    return closedLoop(() -> System.nanoTime() < end, op);
  }

  /** {@code count} operations from the closed-loop clients. */
  Run closedLoop(int count, Op op) throws IOException, InterruptedException {
    AtomicInteger next = new AtomicInteger();
    return closedLoop(() -> next.getAndIncrement() < count, op);
  }

  /**
   * Operations for {@code time} (none if it is zero), the rate rising evenly from 0 to {@code rate}
   * over its first half and held there for the second: the connections the rate needs open a few at
   * a time. Started at the full rate at once, the operations due in the first moments each open a
   * connection (a TLS handshake on the node as well) on cold connections, which slows them, so that
   * more are in flight and open more.
   */
  Run rampedOpenLoopFor(Duration time, Op op) throws IOException, InterruptedException {
    double ramp = time.toNanos() / 2.0 / NANOS_PER_SECOND;
    // rate * t / ramp per second at t into the ramp: rate * t^2 / (2 ramp) operations by then
    int rampCount = (int) (rate * ramp / 2);
    int count = rampCount + (int) (rate * ramp);
    return openLoop(
        count,
        i ->
            i < rampCount
                ? (long) (Math.sqrt(2 * ramp * i / rate) * NANOS_PER_SECOND)
                : (long) ((ramp + (i - rampCount) / rate) * NANOS_PER_SECOND),
        op);
  }

  /** {@code count} operations started at {@code rate} per second. */
  Run openLoop(int count, Op op) throws IOException, InterruptedException {
    long interval = (long) (NANOS_PER_SECOND / rate);
    return openLoop(count, i -> i * interval, op);
  }

  /**
   * {@code count} operations, operation {@code i} due {@code dueAt(i)} nanoseconds after the start
   * (non-decreasing), its latency counted from then.
   */
  private Run openLoop(int count, IntToLongFunction dueAt, Op op)
      throws IOException, InterruptedException {
    Semaphore outstanding = new Semaphore(MAX_OUTSTANDING);
    CountDownLatch done = new CountDownLatch(count);
    List<Timed> all = new ArrayList<>();
    AtomicReference<Exception> failure = new AtomicReference<>();
    long start = System.nanoTime();
    for (int i = 0; i < count && failure.get() == null; i++) {
      long due = start + dueAt.applyAsLong(i);
      for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
        LockSupport.parkNanos(wait); // pacing the load, not waiting for a result
      }
      outstanding.acquire();
      openLoopThreads.execute(
          () -> {
            try {
              Sample s = op.run();
              Timed t = new Timed(s, System.nanoTime() - due);
              synchronized (all) {
                all.add(t);
              }
            } catch (IOException | InterruptedException | RuntimeException e) {
              failure.compareAndSet(null, e);
            } finally {
              outstanding.release();
              done.countDown();
            }
          });
    }
    if (failure.get() == null) {
      done.await();
    }
    if (failure.get() != null) {
      throw new IOException(
          "a bench operation failed: " + failure.get().getMessage(), failure.get());
    }
    synchronized (all) {
      return Run.of(all, start);
    }
  }

  /** Stops the open loop's threads. */
  @Override
  public void close() {
    openLoopThreads.shutdownNow();
  }
}
