package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.baton.procedure.store.FileProcedureStore;
import dev.baton.procedure.store.InMemoryProcedureStore;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.testing.CrashInjectingStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random trees of procedures with random step failures and random crashes (before or after a store
 * write), checking the recovery invariants: every root ends in exactly one terminal state; a
 * succeeded tree rolled nothing back; a rolled-back tree undid only executed states, each member's
 * states newest first, children before the parent's spawning state; succeeded children are never
 * rolled back. The seed is printed on failure; set -Dbaton.seed=N to replay one.
 */
@Timeout(120)
class RandomizedRecoveryTest {
  private static final int IN_MEMORY_ROUNDS = 50;
  private static final int FILE_ROUNDS = 25;
  private static final int ROOTS = 12;
  private static final int MAX_CRASHES = 25;
  private static final Duration AWAIT = Duration.ofSeconds(30);
  private int totalCrashes;
  private int totalRolledBack;

  @Test
  void randomTreesWithFailuresAndCrashesKeepTheInvariants() throws Exception {
    runRounds(IN_MEMORY_ROUNDS, seed -> new InMemoryProcedureStore());
  }

  /** The same on a file store (fsync off: the files, their recovery and group commit are real). */
  @Test
  @Timeout(60)
  void randomTreesOnAFileStoreKeepTheInvariants(@TempDir Path dir) throws Exception {
    runRounds(
        FILE_ROUNDS,
        seed ->
            new FileProcedureStore(
                dir.resolve("round-" + seed),
                FileProcedureStore.Config.defaults().withFsync(false)));
  }

  private void runRounds(int rounds, LongFunction<ProcedureStore> stores) {
    long base = Long.getLong("baton.seed", System.nanoTime());
    System.out.println(
        "randomized recovery: base seed " + base + " (replay: -Dbaton.seed=" + base + ")");
    for (int round = 0; round < rounds; round++) {
      long seed = base + round;
      try {
        runOnce(seed, stores.apply(seed));
      } catch (AssertionError | Exception e) {
        throw new AssertionError(
            "failed with seed "
                + seed
                + " (replay: -Dbaton.seed="
                + seed
                + " runs it first): "
                + e.getMessage(),
            e);
      }
    }
    assertTrue(totalCrashes > 0, "no crash was injected in " + rounds + " rounds");
    assertTrue(totalRolledBack > 0, "no tree rolled back in " + rounds + " rounds");
  }

  private void runOnce(long seed, ProcedureStore durable) throws Exception {
    Random random = new Random(seed);
    TestEnv env = new TestEnv();
    CrashInjectingStore store = new CrashInjectingStore(durable);
    List<String> names = new ArrayList<>();
    List<TreeStep> roots = new ArrayList<>();
    for (int i = 0; i < ROOTS; i++) {
      String name = "r" + i;
      int depth = random.nextInt(3);
      int fanout = 1 + random.nextInt(3);
      roots.add(new TreeStep(name, depth, fanout));
      names.add(name);
      if (random.nextInt(3) == 0) {
        // fail some state of some member of this tree once
        String member = name + (depth > 0 && random.nextBoolean() ? ".0" : "");
        env.failNext(member + ":" + "ABC".charAt(random.nextInt(3)), 1);
      }
    }
    Map<String, Long> ids = new HashMap<>();
    Set<String> dueAtRestart = new HashSet<>();
    int crashes = 0;
    while (true) {
      boolean chaos = crashes < MAX_CRASHES;
      CrashInjectingStore.Mode mode =
          random.nextBoolean()
              ? CrashInjectingStore.Mode.BEFORE_PERSIST
              : CrashInjectingStore.Mode.AFTER_PERSIST;
      int skip = random.nextInt(40);
      boolean firstRun = ids.isEmpty();
      if (!firstRun) {
        dueAtRestart.addAll(TreeStep.storedRunnableDueStates(durable));
      }
      store.disarm();
      if (chaos && !firstRun) {
        store.arm(mode, skip);
      }
      ProcedureExecutor<TestEnv> executor =
          ProcedureExecutor.builder(env, store, TreeStep.registry())
              .coreWorkers(1 + random.nextInt(3))
              .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(10))
              .build();
      try {
        if (startedWithoutCrash(executor)) {
          if (ids.isEmpty()) {
            for (int i = 0; i < ROOTS; i++) {
              ids.put(names.get(i), executor.submit(roots.get(i)));
            }
            if (chaos) {
              store.arm(mode, skip);
            }
          }
          if (awaitAll(executor, ids)) {
            check(executor, env, ids, dueAtRestart);
            return;
          }
        }
      } finally {
        executor.stop();
      }
      crashes++;
      totalCrashes++;
    }
  }

  /**
   * Starts the executor; false if the simulated crash hit the recovery's own write (the due states
   * it counts as run).
   */
  private static boolean startedWithoutCrash(ProcedureExecutor<TestEnv> executor)
      throws IOException {
    try {
      executor.start();
      return true;
    } catch (CrashInjectingStore.SimulatedCrashException crashedInRecovery) {
      return false;
    }
  }

  /** True if every root finished; false if the executor stopped on a simulated crash. */
  private boolean awaitAll(ProcedureExecutor<TestEnv> executor, Map<String, Long> ids)
      throws Exception {
    for (long id : ids.values()) {
      try {
        executor.await(id, AWAIT);
      } catch (IllegalStateException stopped) {
        return false;
      }
    }
    return true;
  }

  private void check(
      ProcedureExecutor<TestEnv> executor,
      TestEnv env,
      Map<String, Long> ids,
      Set<String> dueAtRestart) {
    List<String> journal = env.journal();
    for (Map.Entry<String, Long> e : ids.entrySet()) {
      String root = e.getKey();
      ProcedureInfo info = executor.getInfo(e.getValue()).orElseThrow();
      assertTrue(info.finished(), root + " not finished: " + info);
      List<String> tree = new ArrayList<>();
      for (String event : journal) {
        String member = event.substring(event.indexOf(' ') + 1, event.indexOf(':'));
        if (member.equals(root) || member.startsWith(root + ".")) {
          tree.add(event);
        }
      }
      if (info.state() == ProcedureState.SUCCESS) {
        assertTrue(
            tree.stream().noneMatch(ev -> ev.startsWith("rollback")),
            root + " rolled back: " + tree);
        assertTrue(tree.contains("exec " + root + ":C"), root + " never ran C: " + tree);
      } else {
        assertEquals(ProcedureState.ROLLEDBACK, info.state(), root + ": " + info);
        totalRolledBack++;
        checkRollback(root, tree, dueAtRestart);
      }
    }
  }

  /**
   * Rollbacks undo executed states only (or a state due in a RUNNABLE record at a restart: it may
   * have run with its outcome lost), newest first per member, children before parents.
   */
  private void checkRollback(String root, List<String> tree, Set<String> dueAtRestart) {
    Map<String, Integer> firstExec = new HashMap<>();
    Map<String, Integer> firstRollback = new HashMap<>();
    for (int i = 0; i < tree.size(); i++) {
      String ev = tree.get(i);
      String step = ev.substring(ev.indexOf(' ') + 1);
      if (ev.startsWith("exec")) {
        firstExec.putIfAbsent(step, i);
      } else {
        firstRollback.putIfAbsent(step, i);
        boolean ranBefore = firstExec.containsKey(step) && firstExec.get(step) < i;
        if (!ranBefore && !dueAtRestart.contains(step)) {
          fail(root + ": " + step + " rolled back, never executed nor due at a restart: " + tree);
        }
      }
    }
    // A member that ran C successfully and is a child was a success: never rolled back.
    for (String step : firstRollback.keySet()) {
      String member = step.substring(0, step.indexOf(':'));
      if (!member.equals(root) && firstExec.containsKey(member + ":C")) {
        boolean failedAtC = tree.contains("rollback " + member + ":C");
        assertTrue(failedAtC, root + ": succeeded child " + member + " rolled back: " + tree);
      }
      // newest first within a member
      for (String later : List.of("B", "C")) {
        String earlier = later.equals("B") ? "A" : "B";
        Integer laterRb = firstRollback.get(member + ":" + later);
        Integer earlierRb = firstRollback.get(member + ":" + earlier);
        if (laterRb != null && earlierRb != null) {
          assertTrue(laterRb < earlierRb, root + ": " + member + " rollback order: " + tree);
        }
      }
      // the parent's spawning state B is undone after every child's rollback
      int dot = member.lastIndexOf('.');
      if (dot > 0) {
        Integer parentB = firstRollback.get(member.substring(0, dot) + ":B");
        if (parentB != null) {
          assertTrue(
              firstRollback.get(step) < parentB,
              root + ": " + step + " undone after its parent's B: " + tree);
        }
      }
    }
  }
}
