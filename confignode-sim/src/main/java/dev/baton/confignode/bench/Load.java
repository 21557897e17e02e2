package dev.baton.confignode.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Phaser;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntToLongFunction;

/**
 * How the bench puts load on the cluster: {@code clients} closed-loop clients (each starts its next
 * operation when the last one answered), or an open loop that starts operations at a fixed rate
 * whatever their answers (each one's latency counted from when it was due, so a cluster that falls
 * behind shows it in the latencies rather than hiding it by slowing the load).
 *
 * <p>An operation that throws, or whose sample did not succeed, is counted as failed and the run
 * goes on; its latency is left out of the percentiles. A run stops early, with an {@link
 * IOException} saying what failed, when its {@link FailureTally} says so (every operation failing
 * for a while, or too many failures).
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
   * @param failure why it did not end as it should; null if it did
   */
  record Sample(long procId, long submitNanos, String failure) {
    static Sample succeeded(long procId, long submitNanos) {
      return new Sample(procId, submitNanos, null);
    }

    static Sample failed(long procId, long submitNanos, String failure) {
      return new Sample(procId, submitNanos, Objects.requireNonNull(failure, "failure"));
    }

    /** Whether it ended as it should. */
    boolean success() {
      return failure == null;
    }
  }

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
   * @param count operations done, failed ones included
   * @param wallSeconds from the first start to the last answer
   * @param latencies each successful operation's latency
   * @param submitLatencies each successful operation's submission answer's
   * @param failures the operations that threw or did not end as they should
   * @param lastId the highest procedure id seen
   */
  record Run(
      int count,
      double wallSeconds,
      Percentiles latencies,
      Percentiles submitLatencies,
      PhaseFailures failures,
      long lastId) {
    static Run of(List<Timed> timed, FailureTally failures, long startNanos) {
      double wall = (System.nanoTime() - startNanos) / NANOS_PER_SECOND;
      List<Timed> succeeded = timed.stream().filter(t -> t.sample().success()).toList();
      long[] latencies = succeeded.stream().mapToLong(Timed::latencyNanos).toArray();
      long[] submits = succeeded.stream().mapToLong(t -> t.sample().submitNanos()).toArray();
      long lastId = timed.stream().mapToLong(t -> t.sample().procId()).max().orElse(0);
      return new Run(
          timed.size(),
          wall,
          Percentiles.ofNanos(latencies),
          Percentiles.ofNanos(submits),
          failures.summary(),
          lastId);
    }

    /** Operations that threw or did not end as they should. */
    int failed() {
      return failures.count();
    }

    /** Operations that ended as they should. */
    int succeeded() {
      return count - failed();
    }
  }

  private final int clients;
  private final double rate;
  private final FailureTally.Limits limits;

  /**
   * The open loop's {@link #OPEN_LOOP_CLIENTS} threads: kept from one open-loop run to the next, so
   * that a warm-up leaves the threads (and their connections) a measured run needs.
   */
  private final ExecutorService openLoopThreads = Executors.newFixedThreadPool(OPEN_LOOP_CLIENTS);

  /**
   * @param clients the closed loop's clients
   * @param rate the open loop's operations per second
   * @param limits when a run stops before its end because its operations fail
   */
  Load(int clients, double rate, FailureTally.Limits limits) {
    this.clients = clients;
    this.rate = rate;
    this.limits = limits;
  }

  /**
   * Runs {@code op} once, its latency counted from {@code fromNanos}; an exception is a failed
   * sample. Counts the outcome in {@code failures}.
   */
  private static Timed attempt(Op op, long fromNanos, FailureTally failures)
      throws InterruptedException {
    Sample s;
    try {
      s = op.run();
    } catch (IOException | RuntimeException e) {
      s = Sample.failed(0, 0, FailureTally.describe(e));
    }
    if (s.success()) {
      failures.succeeded();
    } else {
      failures.failed(s.failure());
    }
    return new Timed(s, System.nanoTime() - fromNanos);
  }

  /**
   * Operations from the closed-loop clients while {@code more} says so, asked before each, and no
   * failure stopped the run.
   */
  Run closedLoopWhile(String phase, BooleanSupplier more, Op op)
      throws IOException, InterruptedException {
    FailureTally failures = new FailureTally(phase, limits);
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long start = System.nanoTime();
    try {
      CompletionService<List<Timed>> clientsDone = new ExecutorCompletionService<>(pool);
      for (int c = 0; c < clients; c++) {
        clientsDone.submit(
            () -> {
              List<Timed> mine = new ArrayList<>();
              while (!failures.stopped() && more.getAsBoolean()) {
                mine.add(attempt(op, System.nanoTime(), failures));
              }
              return mine;
            });
      }
      List<Timed> all = new ArrayList<>();
      // in the order the clients end: once the run stopped, the others' operations in flight are
      // not waited for
      for (int c = 0; c < clients && !failures.stopped(); c++) {
        try {
          all.addAll(clientsDone.take().get());
        } catch (ExecutionException e) {
          throw new IOException("a bench client failed: " + e.getCause().getMessage(), e);
        }
      }
      throwIfStopped(failures);
      return Run.of(all, failures, start);
    } finally {
      pool.shutdownNow();
    }
  }

  private static void throwIfStopped(FailureTally failures) throws IOException {
    String stopped = failures.stopMessage();
    if (stopped != null) {
      throw new IOException(stopped);
    }
  }

  /**
   * Operations from the closed-loop clients until {@code time} has passed (each client stops at its
   * first answer after it).
   */
  Run closedLoopFor(String phase, Duration time, Op op) throws IOException, InterruptedException {
    long end = System.nanoTime() + time.toNanos();
    return closedLoopWhile(phase, () -> System.nanoTime() < end, op);
  }

  /** {@code count} operations from the closed-loop clients. */
  Run closedLoop(String phase, int count, Op op) throws IOException, InterruptedException {
    AtomicInteger next = new AtomicInteger();
    return closedLoopWhile(phase, () -> next.getAndIncrement() < count, op);
  }

  /**
   * Operations for {@code time} (none if it is zero), the rate rising evenly from 0 to {@code rate}
   * over its first half and held there for the second: the connections the rate needs open a few at
   * a time. Started at the full rate at once, the operations due in the first moments each open a
   * connection (a TLS handshake on the node as well) on cold connections, which slows them, so that
   * more are in flight and open more.
   */
  Run rampedOpenLoopFor(String phase, Duration time, Op op)
      throws IOException, InterruptedException {
    double ramp = time.toNanos() / 2.0 / NANOS_PER_SECOND;
    // rate * t / ramp per second at t into the ramp: rate * t^2 / (2 ramp) operations by then
    int rampCount = (int) (rate * ramp / 2);
    int count = rampCount + (int) (rate * ramp);
    return openLoop(
        phase,
        count,
        i ->
            i < rampCount
                ? (long) (Math.sqrt(2 * ramp * i / rate) * NANOS_PER_SECOND)
                : (long) ((ramp + (i - rampCount) / rate) * NANOS_PER_SECOND),
        () -> true,
        op);
  }

  /** {@code count} operations started at {@code rate} per second. */
  Run openLoop(String phase, int count, Op op) throws IOException, InterruptedException {
    return openLoop(phase, count, atRate(), () -> true, op);
  }

  /**
   * Operations started at {@code rate} per second while {@code more} says so, asked before each.
   */
  Run openLoopWhile(String phase, BooleanSupplier more, Op op)
      throws IOException, InterruptedException {
    return openLoop(phase, Integer.MAX_VALUE, atRate(), more, op);
  }

  /** When operation {@code i} is due, in nanoseconds from the start, at {@code rate} per second. */
  private IntToLongFunction atRate() {
    long interval = (long) (NANOS_PER_SECOND / rate);
    return i -> i * interval;
  }

  /** A phase that ran no operation. */
  Run none(String phase) {
    return Run.of(List.of(), new FailureTally(phase, limits), System.nanoTime());
  }

  /**
   * At most {@code count} operations, while {@code more} says so (asked before each), operation
   * {@code i} due {@code dueAt(i)} nanoseconds after the start (non-decreasing), its latency
   * counted from then; none started once a failure stopped the run.
   */
  private Run openLoop(
      String phase, int count, IntToLongFunction dueAt, BooleanSupplier more, Op op)
      throws IOException, InterruptedException {
    FailureTally failures = new FailureTally(phase, limits);
    Semaphore outstanding = new Semaphore(MAX_OUTSTANDING);
    // this thread's party, and one per operation in flight (at most MAX_OUTSTANDING)
    Phaser inFlight = new Phaser(1);
    List<Timed> all = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < count && !failures.stopped() && more.getAsBoolean(); i++) {
      long due = start + dueAt.applyAsLong(i);
      for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
        LockSupport.parkNanos(wait); // pacing the load, not waiting for a result
      }
      outstanding.acquire();
      inFlight.register();
      openLoopThreads.execute(
          () -> {
            try {
              Timed t = attempt(op, due, failures);
              synchronized (all) {
                all.add(t);
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt(); // the load is closing
            } finally {
              outstanding.release();
              inFlight.arriveAndDeregister();
            }
          });
    }
    int arrived = inFlight.arrive();
    if (!failures.stopped()) {
      inFlight.awaitAdvanceInterruptibly(arrived);
    }
    throwIfStopped(failures);
    synchronized (all) {
      return Run.of(all, failures, start);
    }
  }

  /** Stops the open loop's threads. */
  @Override
  public void close() {
    openLoopThreads.shutdownNow();
  }
}
