package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.scheduler.FifoScheduler;
import dev.baton.procedure.scheduler.Schedulable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Stuck-worker monitor, keep-alive workers, and the per-procedure lock. */
@Timeout(60)
class WorkerPoolTest {

  /** Counts concurrent entries into its steps and rollbacks; fails the test if two overlap. */
  public static final class Exclusive extends IntStateProcedure {
    static final int STEPS = 300;
    final AtomicInteger inside = new AtomicInteger();
    final AtomicInteger maxInside = new AtomicInteger();
    int done;

    @Override
    protected Flow executeFromState(TestEnv env, Integer state) throws InterruptedException {
      enter();
      try {
        if (done == 0) {
          env.passGate("exclusive first step");
        }
        done++;
        for (int i = 0; i < 200; i++) {
          Thread.onSpinWait(); // widen the window in which a second worker could come in
        }
        return done < STEPS ? Flow.HAS_MORE_STATE : Flow.NO_MORE_STATE;
      } finally {
        inside.decrementAndGet();
      }
    }

    private void enter() {
      int now = inside.incrementAndGet();
      maxInside.accumulateAndGet(now, Math::max);
    }

    @Override
    protected void serializeStateData(DataOutputStream out) throws IOException {
      out.writeInt(done);
    }

    @Override
    protected void deserializeStateData(DataInputStream in) throws IOException {
      done = in.readInt();
    }
  }

  /** A step that ignores interrupts: it holds its worker until released. */
  public static final class Stubborn extends IntStateProcedure {
    final CountDownLatch entered;
    final CountDownLatch release;

    public Stubborn() {
      this(new CountDownLatch(1), new CountDownLatch(0));
    }

    Stubborn(CountDownLatch entered, CountDownLatch release) {
      this.entered = entered;
      this.release = release;
    }

    @Override
    protected Flow executeFromState(TestEnv env, Integer state) {
      entered.countDown();
      boolean interrupted = false;
      while (release.getCount() > 0) {
        try {
          release.await();
        } catch (InterruptedException e) {
          interrupted = true; // a step stuck in a call that does not answer interrupts
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      return Flow.NO_MORE_STATE;
    }
  }

  private final List<Harness> harnesses = new ArrayList<>();

  @AfterEach
  void tearDown() {
    harnesses.forEach(Harness::close);
  }

  private Harness harness(ProcedureRegistry registry) {
    Harness h = new Harness(registry);
    harnesses.add(h);
    return h;
  }

  @Test
  void stuckWorkersGetKeepAliveHelpersUpToMaxWhichRetireWhenIdle() throws Exception {
    Harness h =
        harness(ScriptedStep.registry())
            .with(
                b ->
                    b.coreWorkers(1)
                        .maxWorkers(3)
                        .stuckThreshold(Duration.ofMillis(100))
                        .stuckCheckInterval(Duration.ofMillis(25))
                        .keepAlive(Duration.ofMillis(200)));
    AtomicInteger maxSeen = new AtomicInteger();
    AtomicBoolean sampling = new AtomicBoolean(true);
    List<CountDownLatch> releases = new ArrayList<>();
    List<CountDownLatch> started = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      String step = "s" + i + ":A";
      releases.add(h.env.gate(step));
      CountDownLatch s = new CountDownLatch(1);
      started.add(s);
      h.env.onRecord.put("exec " + step, s::countDown);
    }
    h.start();
    Thread sampler =
        new Thread(
            () -> {
              while (sampling.get()) {
                maxSeen.accumulateAndGet(h.executor.workerCount(), Math::max);
                java.util.concurrent.locks.LockSupport.parkNanos(100_000); // sample, do not spin
              }
            });
    sampler.setDaemon(true);
    sampler.start();
    try {
      assertEquals(1, h.executor.workerCount());
      List<Long> ids = new ArrayList<>();
      // s0 blocks the only core worker; s1 waits in the queue until the monitor adds a worker
      ids.add(h.executor.submit(new ScriptedStep("s0")));
      assertTrue(started.get(0).await(20, TimeUnit.SECONDS));
      ids.add(h.executor.submit(new ScriptedStep("s1")));
      assertTrue(started.get(1).await(20, TimeUnit.SECONDS), "a helper ran s1");
      ids.add(h.executor.submit(new ScriptedStep("s2")));
      assertTrue(started.get(2).await(20, TimeUnit.SECONDS), "a second helper ran s2");
      assertEquals(3, h.executor.workerCount());

      // all three stuck, s3 queued: it runs once a worker is free (the cap itself is checked
      // deterministically in helpersAreAddedOnlyWhileWorkWaitsAndNeverBeyondMax)
      ids.add(h.executor.submit(new ScriptedStep("s3")));
      releases.get(0).countDown();
      assertTrue(started.get(3).await(20, TimeUnit.SECONDS), "s3 ran once a worker was free");
      releases.forEach(CountDownLatch::countDown);
      for (long id : ids) {
        assertEquals(ProcedureState.SUCCESS, h.await(id).state());
      }
    } finally {
      sampling.set(false);
      sampler.join();
    }
    assertTrue(maxSeen.get() <= 3, "workers exceeded maxWorkers: " + maxSeen.get());

    Harness.eventually("helpers retire after keep-alive")
        .until(() -> h.executor.workerCount() == 1);
    long id = h.executor.submit(new ScriptedStep("after"));
    assertEquals(ProcedureState.SUCCESS, h.await(id).state(), "the core worker stays");
  }

  @Test
  void runningAndQueuedCountsFollowTheWork() throws Exception {
    Harness h =
        harness(ScriptedStep.registry())
            .with(b -> b.coreWorkers(1).maxWorkers(1).stuckThreshold(Duration.ofHours(1)));
    CountDownLatch release = h.env.gate("busy:A");
    CountDownLatch started = new CountDownLatch(1);
    h.env.onRecord.put("exec busy:A", started::countDown);
    h.start();
    assertEquals(0, h.executor.runningCount());
    assertEquals(0, h.executor.queuedCount());
    long busy = h.executor.submit(new ScriptedStep("busy"));
    assertTrue(started.await(20, TimeUnit.SECONDS));
    long queued = h.executor.submit(new ScriptedStep("queued"));
    Harness.eventually("one step running, one procedure queued")
        .until(() -> h.executor.runningCount() == 1 && h.executor.queuedCount() == 1);
    release.countDown();
    assertEquals(ProcedureState.SUCCESS, h.await(busy).state());
    assertEquals(ProcedureState.SUCCESS, h.await(queued).state());
    Harness.eventually("nothing running or queued once both finished")
        .until(() -> h.executor.runningCount() == 0 && h.executor.queuedCount() == 0);
  }

  @Test
  void helpersAreAddedOnlyWhileWorkWaitsAndNeverBeyondMax() throws Exception {
    ExecutorConfig config =
        new ExecutorConfig(
            1, // core
            3, // max
            Duration.ofMillis(1), // stuck threshold
            Duration.ofHours(1), // the test runs the monitor's rounds itself
            Duration.ofMillis(50), // keep-alive
            Duration.ofMillis(10), // poll interval
            Duration.ZERO,
            Duration.ofHours(1),
            Duration.ofMillis(1),
            Duration.ofMillis(1),
            Duration.ofSeconds(10),
            1,
            0);
    FifoScheduler scheduler = new FifoScheduler();
    scheduler.start();
    java.util.Map<Procedure<?>, CountDownLatch> gates =
        new java.util.concurrent.ConcurrentHashMap<>();
    java.util.Set<Schedulable> running = java.util.concurrent.ConcurrentHashMap.newKeySet();
    List<Procedure<?>> procs = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      Procedure<?> p = new ScriptedStep("p" + i);
      procs.add(p);
      gates.put(p, new CountDownLatch(1));
    }
    WorkerPool pool =
        new WorkerPool(
            "pool-test",
            scheduler,
            p -> {
              running.add(p);
              try {
                gates.get(p).await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            config);
    pool.start();
    try {
      scheduler.addBack(procs.get(0));
      Harness.eventually("p0 stuck").until(() -> pool.stuckCount() == 1);
      pool.checkStuck();
      assertEquals(1, pool.workerCount(), "nothing waits, so no helper");

      for (int i = 1; i < 5; i++) {
        scheduler.addBack(procs.get(i));
      }
      pool.checkStuck();
      assertEquals(2, pool.workerCount(), "one helper for one stuck worker");
      Harness.eventually("p1 stuck").until(() -> pool.stuckCount() == 2);
      pool.checkStuck();
      assertEquals(3, pool.workerCount(), "capped at max although two are stuck");
      Harness.eventually("p2 stuck").until(() -> pool.stuckCount() == 3);
      for (int round = 0; round < 5; round++) {
        pool.checkStuck();
        assertEquals(3, pool.workerCount(), "round " + round + " went beyond max");
      }
      assertEquals(2, scheduler.size(), "p3 and p4 still wait");

      gates.values().forEach(CountDownLatch::countDown);
      Harness.eventually("all ran").until(() -> running.size() == 5);
      Harness.eventually("helpers retired").until(() -> pool.workerCount() == 1);
    } finally {
      pool.stop();
    }
  }

  @Test
  void oneProcedureNeverRunsOnTwoWorkersAtOnceEvenWhenQueuedTwice() throws Exception {
    Exclusive proc = new Exclusive();
    Harness h =
        harness(new ProcedureRegistry().register("Exclusive", Exclusive.class, Exclusive::new))
            .with(b -> b.coreWorkers(4));
    CountDownLatch firstStep = h.env.gate("exclusive first step");
    h.start();
    long id = h.executor.submit(proc);
    // wake() puts the procedure in the queue again while it runs: idle workers pick those
    // duplicates up and must wait for the worker that runs it. The first step is held until
    // plenty of duplicates are queued.
    for (int i = 0; i < 50; i++) {
      assertTrue(h.executor.wake(id), "a live procedure can be woken");
    }
    firstStep.countDown();
    while (!h.executor.getInfo(id).orElseThrow().finished()) {
      h.executor.wake(id);
      java.util.concurrent.locks.LockSupport.parkNanos(20_000);
    }
    ProcedureInfo info = h.await(id);
    assertEquals(ProcedureState.SUCCESS, info.state());
    assertEquals(1, proc.maxInside.get(), "two workers ran the procedure at once");
    assertEquals(Exclusive.STEPS, proc.done, "every step ran exactly once");
  }

  /**
   * The stop join timeout bounds the whole stop, not each worker: a stop that waited for each stuck
   * worker in turn would take the timeout times the workers (here 8 x 2 s) and hold back the next
   * leader's executor that long.
   */
  @Test
  void stopWaitsForStuckWorkersTogetherAtMostTheJoinTimeout() throws Exception {
    int stuck = 8;
    Duration join = Duration.ofSeconds(2);
    Harness h =
        harness(new ProcedureRegistry().register("Stubborn", Stubborn.class, Stubborn::new))
            .with(
                b ->
                    b.coreWorkers(stuck)
                        .maxWorkers(stuck)
                        .stuckThreshold(Duration.ofHours(1))
                        .stopJoinTimeout(join));
    CountDownLatch entered = new CountDownLatch(stuck);
    CountDownLatch release = new CountDownLatch(1);
    h.start();
    try {
      for (int i = 0; i < stuck; i++) {
        h.executor.submit(new Stubborn(entered, release));
      }
      assertTrue(entered.await(20, TimeUnit.SECONDS), "every worker runs a stuck step");
      long start = System.nanoTime();
      h.executor.stop();
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertTrue(
          took.compareTo(join.multipliedBy(stuck / 2)) < 0,
          "stop took " + took + " for " + stuck + " stuck workers and a join timeout of " + join);
      assertTrue(took.compareTo(join) >= 0, "stop gave the workers the join timeout: " + took);
    } finally {
      release.countDown();
    }
  }

  @Test
  void differentProceduresDoRunInParallel() throws Exception {
    Harness h = harness(ScriptedStep.registry()).with(b -> b.coreWorkers(2));
    // each one's first step waits until both are inside: only possible on two workers at once
    CountDownLatch bothInside = new CountDownLatch(2);
    h.env.onRecord.put("exec x:A", bothInside::countDown);
    h.env.onRecord.put("exec y:A", bothInside::countDown);
    CountDownLatch xGate = h.env.gate("x:A");
    CountDownLatch yGate = h.env.gate("y:A");
    h.start();
    long x = h.executor.submit(new ScriptedStep("x"));
    long y = h.executor.submit(new ScriptedStep("y"));
    assertTrue(bothInside.await(20, TimeUnit.SECONDS), "x and y were not inside together");
    xGate.countDown();
    yGate.countDown();
    assertEquals(ProcedureState.SUCCESS, h.await(x).state());
    assertEquals(ProcedureState.SUCCESS, h.await(y).state());
  }
}
