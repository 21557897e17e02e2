package dev.baton.procedure;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.baton.procedure.scheduler.FairScheduler;
import dev.baton.procedure.scheduler.FifoScheduler;
import dev.baton.procedure.scheduler.LockMode;
import dev.baton.procedure.store.InMemoryProcedureStore;
import dev.baton.procedure.testing.CrashInjectingStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Thousands of procedures with random shared and exclusive locks on nodes, databases and regions
 * (the region locks taking their database shared), some holding their locks across steps, some
 * spawning children (among them "delete database" trees: a database held exclusively across steps
 * with children on its regions), some failing and rolling back, some yielding, all under random
 * executor restarts on one {@link InMemoryProcedureStore} (clean stops, and simulated crashes
 * before or after a store write), with a random scheduler and worker count per incarnation.
 *
 * <p>Every step and rollback step records its interval (logical times from one counter) on every
 * resource it locked. Checked: exclusive intervals overlap no other interval on their resource,
 * shared ones overlap only shared ones; a procedure holding its locks across steps holds them from
 * its (last) first step to its last step or rollback step, and nothing but its own descendants
 * conflicts with it in that window. Every tree ends as predicted, and the lock table ends empty.
 * The seed is printed; -Dbaton.seed=N replays one.
 */
@Timeout(180)
class LockExclusivityRandomizedTest {
  private static final int PROCEDURES = Integer.getInteger("baton.lockProcedures", 2_000);
  private static final Duration AWAIT = Duration.ofSeconds(90);
  private static final int DATABASES = 3;
  private static final int REGIONS = 4;
  private static final int NODES = 3;

  @Test
  void conflictingStepsNeverOverlapUnderRandomWorkloadAndRestarts() throws Exception {
    long seed = Long.getLong("baton.seed", System.nanoTime());
    System.out.println(
        "LockExclusivityRandomizedTest seed " + seed + " (-Dbaton.seed=" + seed + ")");
    try {
      run(seed);
    } catch (AssertionError | Exception e) {
      throw new AssertionError(
          "failed with seed " + seed + " (replay: -Dbaton.seed=" + seed + "): " + e.getMessage(),
          e);
    }
  }

  private void run(long seed) throws Exception {
    Random random = new Random(seed);
    LockEnv env = new LockEnv();
    CrashInjectingStore store = new CrashInjectingStore(new InMemoryProcedureStore());
    List<LockStep> specs = new ArrayList<>();
    for (int i = 0; i < PROCEDURES; i++) {
      specs.add(randomProcedure(random, "p" + i));
    }
    int restarts = 2 + random.nextInt(4);
    Map<String, Long> ids = new HashMap<>();
    int next = 0;
    int crashes = 0;
    ProcedureExecutor<LockEnv> executor = null;
    try {
      for (int incarnation = 0; incarnation <= restarts; incarnation++) {
        executor =
            ProcedureExecutor.builder(env, store, LockStep.registry())
                .lockManager(env.locks)
                .scheduler(random.nextBoolean() ? new FairScheduler() : new FifoScheduler())
                .coreWorkers(1 + random.nextInt(4))
                .build();
        executor.start();
        int batch =
            incarnation == restarts
                ? specs.size() - next
                : Math.min(specs.size() - next, PROCEDURES / (restarts + 1));
        for (int i = 0; i < batch; i++, next++) {
          LockStep s = specs.get(next);
          ids.put(s.name, executor.submit(s));
        }
        if (incarnation < restarts) {
          // end this incarnation with a clean stop after some steps, or with a simulated crash
          // before or after a store write (the executor stops itself)
          if (random.nextBoolean()) {
            store.arm(
                random.nextBoolean()
                    ? CrashInjectingStore.Mode.BEFORE_PERSIST
                    : CrashInjectingStore.Mode.AFTER_PERSIST,
                random.nextInt(600));
          }
          long target = env.steps.get() + 50 + random.nextInt(400);
          ProcedureExecutor<LockEnv> running = executor;
          await()
              .atMost(AWAIT)
              .until(
                  () ->
                      env.steps.get() >= target
                          || !running.isRunning()
                          || allFinished(running, ids));
          store.disarm();
          if (!executor.isRunning()) {
            crashes++;
          }
          executor.stop();
        }
      }
      for (Map.Entry<String, Long> e : ids.entrySet()) {
        ProcedureInfo info = executor.await(e.getValue(), AWAIT);
        LockStep spec = specs.get(Integer.parseInt(e.getKey().substring(1)));
        ProcedureState expected =
            expectsFailure(spec) ? ProcedureState.ROLLEDBACK : ProcedureState.SUCCESS;
        assertEquals(expected, info.state(), e.getKey() + ": " + info);
      }
      ProcedureExecutor<LockEnv> last = executor;
      await().atMost(AWAIT).until(() -> last.locks().isEmpty());
    } finally {
      if (executor != null) {
        executor.stop();
      }
    }
    List<LockEnv.Interval> intervals = new ArrayList<>(env.intervals);
    assertTrue(intervals.size() >= PROCEDURES, "intervals recorded: " + intervals.size());
    checkSteps(intervals);
    checkHeldWindows(specs, intervals);
    System.out.println(
        "LockExclusivityRandomizedTest seed "
            + seed
            + ": "
            + PROCEDURES
            + " procedures, "
            + restarts
            + " restarts ("
            + crashes
            + " simulated crashes), "
            + env.steps.get()
            + " steps, "
            + intervals.size()
            + " intervals checked");
  }

  private static boolean allFinished(ProcedureExecutor<LockEnv> executor, Map<String, Long> ids) {
    for (long id : ids.values()) {
      if (!executor.getInfo(id).map(ProcedureInfo::finished).orElse(false)) {
        return false;
      }
    }
    return true;
  }

  private static boolean expectsFailure(LockStep spec) {
    if (spec.failAt >= 0) {
      return true;
    }
    return spec.childAt >= 0 && spec.children.stream().anyMatch(c -> c.failAt >= 0);
  }

  // ---------------------------------------------------------------- workload

  private static LockStep randomProcedure(Random random, String name) {
    int kind = random.nextInt(100);
    if (kind < 5) {
      return deleteDatabase(random, name);
    }
    LockStep p = new LockStep(name).steps(1 + random.nextInt(4));
    int locks = random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(3);
    for (int i = 0; i < locks; i++) {
      addRandomLock(random, p);
    }
    if (random.nextInt(100) < 30) {
      p.yielding();
    }
    boolean hold = random.nextInt(100) < 20;
    if (hold) {
      p.hold();
    } else if (random.nextInt(100) < 15) {
      List<LockStep> kids = new ArrayList<>();
      int n = 1 + random.nextInt(3);
      for (int i = 0; i < n; i++) {
        LockStep c = new LockStep(name + "." + i).steps(1 + random.nextInt(3));
        addRandomLock(random, c);
        if (random.nextInt(100) < 5) {
          c.failAt(random.nextInt(c.steps));
        }
        kids.add(c);
      }
      p.childrenAt(random.nextInt(p.steps), kids);
    }
    if (random.nextInt(100) < 8) {
      int at = random.nextInt(p.steps);
      p.failAt(at);
      if (p.childAt >= at) {
        p.childrenAt(-1, List.of()); // never spawned
      }
    }
    return p;
  }

  /** Holds a database exclusively across its steps; its children work on the database's regions. */
  private static LockStep deleteDatabase(Random random, String name) {
    String db = "db" + random.nextInt(DATABASES);
    LockStep p = new LockStep(name).exclusive("database:" + db).hold().steps(3);
    List<LockStep> kids = new ArrayList<>();
    int n = 1 + random.nextInt(3);
    for (int i = 0; i < n; i++) {
      LockStep c =
          new LockStep(name + "." + i)
              .exclusive("region:" + db + "/r" + random.nextInt(REGIONS))
              .steps(1 + random.nextInt(2));
      if (random.nextInt(100) < 10) {
        c.failAt(0);
      }
      kids.add(c);
    }
    return p.childrenAt(1, kids);
  }

  private static void addRandomLock(Random random, LockStep p) {
    int what = random.nextInt(10);
    String resource;
    LockMode mode;
    if (what < 2) {
      resource = "node:n" + random.nextInt(NODES);
      mode = random.nextBoolean() ? LockMode.EXCLUSIVE : LockMode.SHARED;
    } else if (what < 4) {
      resource = "database:db" + random.nextInt(DATABASES);
      mode = random.nextInt(4) == 0 ? LockMode.EXCLUSIVE : LockMode.SHARED;
    } else {
      resource = "region:db" + random.nextInt(DATABASES) + "/r" + random.nextInt(REGIONS);
      mode = random.nextInt(3) == 0 ? LockMode.SHARED : LockMode.EXCLUSIVE;
    }
    p.lock(resource, mode);
  }

  // ---------------------------------------------------------------- checks

  /** Exclusive step intervals overlap nothing on their resource; shared ones only shared ones. */
  private static void checkSteps(List<LockEnv.Interval> intervals) {
    Map<String, List<LockEnv.Interval>> byResource = new HashMap<>();
    for (LockEnv.Interval i : intervals) {
      byResource.computeIfAbsent(i.resource(), r -> new ArrayList<>()).add(i);
    }
    for (List<LockEnv.Interval> list : byResource.values()) {
      list.sort(Comparator.comparingLong(LockEnv.Interval::start));
      LockEnv.Interval longestAny = null;
      LockEnv.Interval longestExclusive = null;
      for (LockEnv.Interval i : list) {
        if (i.mode() == LockMode.EXCLUSIVE && longestAny != null && longestAny.end() > i.start()) {
          fail("exclusive " + i + " overlaps " + longestAny);
        }
        if (longestExclusive != null && longestExclusive.end() > i.start()) {
          fail(i + " overlaps exclusive " + longestExclusive);
        }
        if (longestAny == null || i.end() > longestAny.end()) {
          longestAny = i;
        }
        if (i.mode() == LockMode.EXCLUSIVE
            && (longestExclusive == null || i.end() > longestExclusive.end())) {
          longestExclusive = i;
        }
      }
    }
  }

  /**
   * A procedure holding its locks across steps holds them from the start of the last execution of
   * its first step (an earlier one whose outcome was lost in a restart held them only for itself)
   * to the end of its last step or rollback step; only its descendants may conflict inside.
   */
  private static void checkHeldWindows(List<LockStep> specs, List<LockEnv.Interval> intervals) {
    Map<String, List<LockEnv.Interval>> byProc = new HashMap<>();
    Map<String, List<LockEnv.Interval>> byResource = new HashMap<>();
    for (LockEnv.Interval i : intervals) {
      byProc.computeIfAbsent(i.proc(), p -> new ArrayList<>()).add(i);
      byResource.computeIfAbsent(i.resource(), r -> new ArrayList<>()).add(i);
    }
    for (LockStep spec : specs) {
      if (!spec.hold || !byProc.containsKey(spec.name)) {
        continue;
      }
      List<LockEnv.Interval> own = byProc.get(spec.name);
      long start =
          own.stream()
              .filter(i -> i.step() == 0)
              .mapToLong(LockEnv.Interval::start)
              .max()
              .orElse(0);
      long end = own.stream().mapToLong(LockEnv.Interval::end).max().orElse(0);
      for (LockStep.Lock lock : spec.locks) {
        String resource = lock.key().toString();
        for (LockEnv.Interval other : byResource.getOrDefault(resource, List.of())) {
          boolean related =
              other.proc().equals(spec.name) || other.proc().startsWith(spec.name + ".");
          boolean conflicting =
              lock.mode() == LockMode.EXCLUSIVE || other.mode() == LockMode.EXCLUSIVE;
          if (!related && conflicting && other.start() < end && start < other.end()) {
            fail(
                spec.name
                    + " holds "
                    + resource
                    + " ("
                    + lock.mode()
                    + ") across steps from "
                    + start
                    + " to "
                    + end
                    + ", but "
                    + other
                    + " ran inside");
          }
        }
      }
    }
  }
}
