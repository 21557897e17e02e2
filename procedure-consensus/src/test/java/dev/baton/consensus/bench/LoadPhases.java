package dev.baton.consensus.bench;

import static dev.baton.consensus.bench.BenchDiagnostics.log;

import dev.baton.consensus.ProcedureNode;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The benchmark's load on the running leader: a closed loop with a window of outstanding no-op
 * procedures (peak rate), an open loop at a fixed rate (latency), and parked procedures that stay
 * live (failover and rebuild at scale).
 */
final class LoadPhases {
  /**
   * The open loop wakes at most once per tick and submits everything due by then: one park per
   * submission (every 70 us at 14,000/s) made the load's own thread switch in and out of the kernel
   * 14,000 times a second, CPU the cluster under test needed, and that a real client in another
   * process would not take from it. A submission made late by the tick is timed from its scheduled
   * time, so the wait counts against the latency.
   */
  static final long SUBMIT_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final BenchCluster cluster;
  private final int window;

  LoadPhases(BenchCluster cluster, int window) {
    this.cluster = cluster;
    this.window = window;
  }

  /** Submits with {@code window} outstanding for {@code secs}; counts finished procedures. */
  LoadRun closedLoop(double secs) throws Exception {
    Semaphore permits = new Semaphore(window);
    LoadRun run = new LoadRun();
    long end = System.nanoTime() + (long) (secs * 1e9);
    while (System.nanoTime() < end) {
      awaitPermits(permits, 1, "closed loop");
      submitNoop(run, System.nanoTime(), null, permits::release, null);
    }
    awaitPermits(permits, window, "closed loop");
    run.finish();
    return run;
  }

  /**
   * Submits at a fixed rate for {@code secs}; records submit-to-done latency into the returned run
   * from each submission's scheduled time (a pause of this JVM delays the submissions due during
   * it, and timing them from their late call would hide that wait: coordinated omission), and into
   * {@code fromCall} from the moment each was actually submitted.
   */
  LoadRun openLoop(double secs, double rate, LatencyBreakdown breakdown, LoadRun fromCall)
      throws Exception {
    LoadRun run = new LoadRun();
    long interval = (long) (1e9 / rate);
    long next = System.nanoTime();
    long end = next + (long) (secs * 1e9);
    AtomicLong outstanding = new AtomicLong();
    while (next < end) {
      long now = System.nanoTime();
      if (next > now) {
        LockSupport.parkNanos(Math.max(next - now, SUBMIT_TICK_NANOS));
        now = System.nanoTime();
      }
      for (; next <= now && next < end; next += interval) {
        outstanding.incrementAndGet();
        submitNoop(run, next, fromCall, outstanding::decrementAndGet, breakdown);
      }
    }
    cluster.awaitTrue("open loop: " + outstanding + " outstanding", () -> outstanding.get() == 0);
    run.finish();
    fromCall.finish();
    return run;
  }

  /**
   * Submits one Noop3 and, once it is done, records its latency from {@code scheduled} into {@code
   * run} (and from the call into {@code fromCall} and the breakdown, if given).
   */
  private void submitNoop(
      LoadRun run, long scheduled, LoadRun fromCall, Runnable done, LatencyBreakdown breakdown) {
    ProcedureNode<Object> leader = cluster.currentLeader();
    long start = System.nanoTime();
    long[] idAt = new long[2];
    leader
        .submit(new BenchProcedures.Noop3(), null)
        .thenCompose(
            id -> {
              idAt[0] = id;
              idAt[1] = System.nanoTime();
              // an executor that stops fails its waiters; no timer per procedure (hundreds of
              // thousands pending in the JDK's one delay queue cost the load's own CPU), the
              // loops bound their waits instead
              return BenchCluster.executorOf(leader).whenFinished(id);
            })
        .whenComplete(
            (info, e) -> {
              if (e == null) {
                long now = System.nanoTime();
                run.record(now - scheduled);
                if (fromCall != null) {
                  fromCall.record(now - start);
                }
                if (breakdown != null) {
                  breakdown.record(idAt[0], start, idAt[1], now);
                }
              } else {
                run.errors.incrementAndGet();
              }
              done.run();
            });
  }

  /**
   * Parks {@code count} more procedures, on whichever node runs the executor (under load a leader
   * change may happen meanwhile), and waits until the running leader holds them all; returns the
   * running leader's live count after.
   */
  int fillParked(int count) throws Exception {
    log("parking %d live procedures", count);
    Semaphore permits = new Semaphore(window);
    int base = cluster.liveOnLeader();
    AtomicLong failed = new AtomicLong();
    for (int i = 0; i < count; i++) {
      awaitPermits(permits, 1, "parking");
      cluster
          .currentLeader()
          .submit(new BenchProcedures.Parked(), null)
          .whenComplete(
              (id, e) -> {
                if (e != null) {
                  failed.incrementAndGet();
                }
                permits.release();
              });
    }
    awaitPermits(permits, window, "parking");
    cluster.awaitTrue(
        count + " parked procedures live on the running leader (" + failed + " submissions failed)",
        () -> cluster.liveOnLeader() >= base + count - failed.get());
    return cluster.liveOnLeader();
  }

  /**
   * Takes {@code n} of a loop's permits (one per outstanding procedure), bounded by the cluster's
   * wait: a procedure that never finishes fails the benchmark, saying so, instead of hanging it.
   */
  private void awaitPermits(Semaphore permits, int n, String loop) throws InterruptedException {
    if (!permits.tryAcquire(n, BenchCluster.WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
      throw cluster.gaveUp(
          loop + ": " + (window - permits.availablePermits()) + " procedures outstanding", null);
    }
  }
}
