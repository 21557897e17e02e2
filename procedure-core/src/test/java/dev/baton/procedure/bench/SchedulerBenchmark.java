package dev.baton.procedure.bench;

import dev.baton.procedure.Procedure;
import dev.baton.procedure.scheduler.FairScheduler;
import dev.baton.procedure.scheduler.FifoScheduler;
import dev.baton.procedure.scheduler.LockHost;
import dev.baton.procedure.scheduler.LockManager;
import dev.baton.procedure.scheduler.LockOutcome;
import dev.baton.procedure.scheduler.LockRequest;
import dev.baton.procedure.scheduler.ProcedureScheduler;
import dev.baton.procedure.scheduler.ResourceKey;
import dev.baton.procedure.scheduler.ResourceProcedure;
import dev.baton.procedure.scheduler.Schedulable;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Scheduler and lock benchmark (not a test).
 *
 * <ol>
 *   <li>Scheduler add+poll: {@code bench.live} procedures spread round-robin over 1, 100 and 10,000
 *       resources are queued; then each operation polls one and adds it back at the end (a yield),
 *       on 1 and on 2 threads. {@link FairScheduler} and {@link FifoScheduler} run in the same JVM,
 *       after a common warm-up, as {@code bench.rounds} rounds of one measurement each (alternating
 *       which goes first). Reported: the median throughputs in pairs per second and the median of
 *       the per-round ratios, which the load of other processes distorts less than the ratio of the
 *       medians. Target: FairScheduler at 10,000 resources reaches at least 50% of FifoScheduler.
 *   <li>Lock acquire/release pairs: uncontended (each pair locks one of 10,000 regions exclusively,
 *       which also takes its database shared) on 1 and 2 threads, and a contended hand-off (two
 *       procedures alternate on one exclusive lock: every acquire parks, every release hands the
 *       lock to the parked one). The hand-off again with the two procedures children of a parent
 *       that holds another lock with {@value #PARENT_WAITERS} waiters: every park then searches the
 *       wait-for graph through the parent and its waiters for a deadlock (the common case, a root
 *       procedure parking at the tail of a queue, searches nothing).
 * </ol>
 *
 * Run from the repository root:
 *
 * <pre>
 * mvn -B -q -pl procedure-core -am test-compile exec:java@bench-scheduler
 * </pre>
 *
 * Sizes are system properties: {@code bench.ops} (operations per measurement, default 1,000,000),
 * {@code bench.rounds} (11), {@code bench.live} (queued procedures, 20,000). The table and a JSON
 * line go to stdout, progress to stderr. It runs inside Maven's JVM; figures depend on whatever
 * else runs on the machine, so the load average is printed with them.
 */
public final class SchedulerBenchmark {
  static final double TARGET_FAIR_OVER_FIFO_AT_10K = 0.5;
  private static final int[] RESOURCES = {1, 100, 10_000};
  private static final int[] THREADS = {1, 2};
  private static final int LOCK_REGIONS = 10_000;
  private static final int LOCK_DATABASES = 10;
  static final int PARENT_WAITERS = 1_000;
  // the hand-off under a contended parent visits PARENT_WAITERS procedures per park
  private static final int PARENT_HANDOFF_OPS_DIVISOR = 100;

  private final long ops = Long.getLong("bench.ops", 1_000_000);
  private final int rounds = Integer.getInteger("bench.rounds", 11);
  private final int live = Integer.getInteger("bench.live", 20_000);
  private final PrintStream out = System.out;
  private final PrintStream progress = System.err;
  private final StringBuilder json = new StringBuilder("{");

  private SchedulerBenchmark() {}

  public static void main(String[] args) throws Exception {
    new SchedulerBenchmark().run();
  }

  private void run() throws Exception {
    var os = ManagementFactory.getOperatingSystemMXBean();
    out.printf(
        Locale.ROOT,
        "scheduler benchmark: %d cpus, load average %.2f, java %s, %d ops x %d rounds, %d live%n",
        os.getAvailableProcessors(),
        os.getSystemLoadAverage(),
        System.getProperty("java.version"),
        ops,
        rounds,
        live);
    schedulers();
    locks();
    json.setLength(json.length() - 1);
    json.append('}');
    out.println(json);
  }

  // ---------------------------------------------------------------- schedulers

  private void schedulers() throws Exception {
    progress.print("warm-up");
    for (int threads : THREADS) {
      for (int resources : RESOURCES) {
        BenchProc[] procs = procedures(resources);
        measureScheduler(FifoScheduler::new, procs, threads);
        measureScheduler(FairScheduler::new, procs, threads);
      }
    }
    progress.println();
    out.println();
    out.printf(
        Locale.ROOT,
        "%-10s %-8s %16s %16s %10s%n",
        "resources",
        "threads",
        "fifo pairs/s",
        "fair pairs/s",
        "fair/fifo*");
    for (int threads : THREADS) {
      for (int resources : RESOURCES) {
        BenchProc[] procs = procedures(resources);
        double[] fifo = new double[rounds];
        double[] fair = new double[rounds];
        double[] ratios = new double[rounds];
        for (int r = 0; r < rounds; r++) {
          // alternate which goes first; the ratio of one round's pair is less exposed to the
          // load of other processes than the ratio of two medians
          if (r % 2 == 0) {
            fifo[r] = measureScheduler(FifoScheduler::new, procs, threads);
            fair[r] = measureScheduler(FairScheduler::new, procs, threads);
          } else {
            fair[r] = measureScheduler(FairScheduler::new, procs, threads);
            fifo[r] = measureScheduler(FifoScheduler::new, procs, threads);
          }
          ratios[r] = fair[r] / fifo[r];
        }
        double fifoMedian = median(fifo);
        double fairMedian = median(fair);
        double ratio = median(ratios);
        out.printf(
            Locale.ROOT,
            "%-10d %-8d %16.0f %16.0f %9.0f%%%s%n",
            resources,
            threads,
            fifoMedian,
            fairMedian,
            ratio * 100,
            resources == 10_000 && ratio < TARGET_FAIR_OVER_FIFO_AT_10K ? "  BELOW TARGET" : "");
        String key = "scheduler_" + resources + "_resources_" + threads + "_threads";
        json.append(
            String.format(
                Locale.ROOT,
                "\"%s\":{\"fifo\":%.0f,\"fair\":%.0f,\"ratio\":%.3f},",
                key,
                fifoMedian,
                fairMedian,
                ratio));
      }
    }
  }

  private BenchProc[] procedures(int resources) {
    ResourceKey[] keys = new ResourceKey[resources];
    for (int i = 0; i < resources; i++) {
      keys[i] = ResourceKey.region("db" + (i % LOCK_DATABASES), "r" + i);
    }
    BenchProc[] procs = new BenchProc[live];
    for (int i = 0; i < live; i++) {
      procs[i] = new BenchProc(keys[i % resources]);
    }
    return procs;
  }

  /** Pairs of poll + addBack per second, over {@code threads} threads sharing the scheduler. */
  private double measureScheduler(
      Supplier<ProcedureScheduler> factory, BenchProc[] procs, int threads) throws Exception {
    ProcedureScheduler s = factory.get();
    s.start();
    for (BenchProc p : procs) {
      s.addBack(p);
    }
    long perThread = ops / threads;
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread w =
          new Thread(
              () -> {
                ready.countDown();
                try {
                  go.await();
                  for (long i = 0; i < perThread; i++) {
                    Schedulable p = s.poll(1, TimeUnit.SECONDS);
                    s.addBack(p);
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      workers.add(w);
      w.start();
    }
    ready.await();
    long start = System.nanoTime();
    go.countDown();
    for (Thread w : workers) {
      w.join();
    }
    long elapsed = System.nanoTime() - start;
    if (s.size() != procs.length) {
      throw new IllegalStateException("lost procedures: " + s.size() + " of " + procs.length);
    }
    return perThread * threads / (elapsed / 1e9);
  }

  // ---------------------------------------------------------------- locks

  private void locks() throws Exception {
    out.println("* median of the per-round ratios; throughputs are medians over the rounds");
    out.println();
    out.printf(Locale.ROOT, "%-40s %16s%n", "lock benchmark", "pairs/s");
    for (int threads : THREADS) {
      double[] r = new double[rounds];
      uncontended(threads); // warm-up
      for (int i = 0; i < rounds; i++) {
        r[i] = uncontended(threads);
      }
      double m = median(r);
      out.printf(
          Locale.ROOT,
          "%-40s %16.0f%n",
          "uncontended region X + database S, " + threads + (threads == 1 ? " thread" : " threads"),
          m);
      json.append(String.format(Locale.ROOT, "\"locks_uncontended_%d_threads\":%.0f,", threads, m));
    }
    double[] h = new double[rounds];
    handoff();
    for (int i = 0; i < rounds; i++) {
      h[i] = handoff();
    }
    double m = median(h);
    out.printf(Locale.ROOT, "%-40s %16.0f%n", "contended hand-off (park + grant)", m);
    json.append(String.format(Locale.ROOT, "\"locks_handoff\":%.0f,", m));
    double[] c = new double[rounds];
    handoffUnderAContendedParent();
    for (int i = 0; i < rounds; i++) {
      c[i] = handoffUnderAContendedParent();
    }
    m = median(c);
    out.printf(
        Locale.ROOT,
        "%-40s %16.0f%n",
        "hand-off of children, parent has " + PARENT_WAITERS + " waiters",
        m);
    json.append(String.format(Locale.ROOT, "\"locks_handoff_children\":%.0f,", m));
  }

  private double uncontended(int threads) throws Exception {
    LockManager locks = new LockManager();
    LockRequest[] requests = new LockRequest[LOCK_REGIONS];
    for (int i = 0; i < LOCK_REGIONS; i++) {
      requests[i] = LockRequest.exclusive(ResourceKey.region("db" + (i % LOCK_DATABASES), "r" + i));
    }
    long perThread = ops / threads;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int offset = t;
      Thread w =
          new Thread(
              () -> {
                BenchProc p = new BenchProc(null);
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                // threads use disjoint regions (even / odd), so no pair waits
                for (long i = 0; i < perThread; i++) {
                  LockRequest r = requests[(int) ((i * threads + offset) % LOCK_REGIONS)];
                  if (locks.acquire(p, r) != LockOutcome.ACQUIRED) {
                    throw new IllegalStateException("uncontended acquire parked");
                  }
                  locks.release(p);
                }
              });
      workers.add(w);
      w.start();
    }
    long start = System.nanoTime();
    go.countDown();
    for (Thread w : workers) {
      w.join();
    }
    long elapsed = System.nanoTime() - start;
    return perThread * threads / (elapsed / 1e9);
  }

  /** Two procedures alternate on one lock: each acquire parks, each release hands off. */
  private double handoff() {
    LockManager locks = new LockManager();
    locks.attach(NO_WAKE);
    return handoff(locks, new BenchProc(null), new BenchProc(null), ops / 2);
  }

  /**
   * The hand-off between two children of a parent that holds another lock exclusively, with {@value
   * #PARENT_WAITERS} root procedures parked on it.
   */
  private double handoffUnderAContendedParent() {
    BenchProc parent = new BenchProc(null);
    BenchProc a = new BenchProc(null);
    BenchProc b = new BenchProc(null);
    LockManager locks = new LockManager();
    locks.attach(
        new LockHost() {
          @Override
          public void wake(Schedulable proc) {}

          @Override
          public boolean isLive(Schedulable proc) {
            return true;
          }

          @Override
          public Schedulable parentOf(Schedulable proc) {
            return proc == a || proc == b ? parent : null;
          }

          @Override
          public long now() {
            return System.currentTimeMillis();
          }

          @Override
          public void scheduleWaitTimeout(Schedulable proc, long deadline) {}
        });
    LockRequest held = LockRequest.exclusive(ResourceKey.node("held"));
    locks.acquire(parent, held);
    for (int i = 0; i < PARENT_WAITERS; i++) {
      if (locks.acquire(new BenchProc(null), held) != LockOutcome.PARKED) {
        throw new IllegalStateException("expected to park");
      }
    }
    return handoff(locks, a, b, ops / PARENT_HANDOFF_OPS_DIVISOR);
  }

  /** {@code a} holds, {@code b} parks; they swap {@code n} times; pairs per second. */
  private static double handoff(LockManager locks, BenchProc a, BenchProc b, long n) {
    LockRequest r = LockRequest.exclusive(ResourceKey.node("n1"));
    locks.acquire(a, r);
    long start = System.nanoTime();
    BenchProc holder = a;
    BenchProc waiter = b;
    for (long i = 0; i < n; i++) {
      if (locks.acquire(waiter, r) != LockOutcome.PARKED) {
        throw new IllegalStateException("expected to park");
      }
      locks.release(holder); // hands the lock to the waiter
      if (locks.acquire(waiter, r) != LockOutcome.ACQUIRED) {
        throw new IllegalStateException("expected the handed lock");
      }
      BenchProc t = holder;
      holder = waiter;
      waiter = t;
    }
    long elapsed = System.nanoTime() - start;
    return n / (elapsed / 1e9);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static final LockHost NO_WAKE = LockHost.DETACHED;

  /** A queued procedure that is never run. */
  static final class BenchProc extends Procedure<Void> implements ResourceProcedure {
    private final ResourceKey key;

    BenchProc(ResourceKey key) {
      this.key = key;
    }

    @Override
    public ResourceKey schedulingResource() {
      return key;
    }

    @Override
    protected Procedure<Void>[] execute(Void env) {
      return null;
    }

    @Override
    protected void rollback(Void env) {}

    @Override
    protected boolean abort(Void env) {
      return false;
    }
  }
}
