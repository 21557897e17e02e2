package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.testing.CrashInjectingStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Root procedure stacks: a failure anywhere in a tree undoes every executed step of every member
 * that has not succeeded, newest first across the tree, each undo persisted; states that cannot be
 * rolled back are retried instead.
 */
@Timeout(60)
class RollbackOrderTest {
  private final List<Harness> harnesses = new ArrayList<>();

  private Harness harness(ProcedureRegistry registry) {
    Harness h = new Harness(registry);
    harnesses.add(h);
    return h;
  }

  @AfterEach
  void tearDown() {
    harnesses.forEach(Harness::close);
  }

  /**
   * r runs A, B (spawns r.0, which runs to SUCCESS), C (spawns r.1); r.1 runs A, B (spawns the
   * grandchild r.1.0), whose B fails. Only one member is runnable at a time, so the execution order
   * is fixed.
   */
  private static void scriptSequentialTree(TestEnv env) {
    env.spawns.put("r:B", List.of("r.0"));
    env.spawns.put("r:C", List.of("r.1"));
    env.spawns.put("r.1:B", List.of("r.1.0"));
    env.failNext("r.1.0:B", 1);
  }

  @Test
  void grandchildFailureUndoesEveryExecutedStepInExactReverseOrder() throws Exception {
    Harness h = harness(ScriptedStep.registry()).with(b -> b.coreWorkers(2));
    scriptSequentialTree(h.env);
    h.start();
    long root = h.executor.submit(new ScriptedStep("r"));
    ProcedureInfo info = h.await(root);

    assertEquals(ProcedureState.ROLLEDBACK, info.state());
    assertTrue(info.failure().contains("injected failure at r.1.0:B"), info.failure());
    assertEquals(
        ProcedureState.SUCCESS, h.executor.getInfo(h.env.ids.get("r.0")).orElseThrow().state());
    assertEquals(
        ProcedureState.ROLLEDBACK,
        h.executor.getInfo(h.env.ids.get("r.1.0")).orElseThrow().state());
    List<String> expected = expectedRollback(h, Set.of("r.0"));
    assertEquals(expected, h.env.journal("rollback"));
    assertTrue(expected.contains("rollback r.1.0:B"), "the failing step is undone too");
    assertTrue(h.env.journal("rollback r.0:").isEmpty(), "a succeeded child is not rolled back");
  }

  /** The executed steps of the members not in {@code succeeded}, newest first. */
  private static List<String> expectedRollback(Harness h, Set<String> succeeded) {
    List<String> out = new ArrayList<>();
    for (String e : h.env.journal("exec ")) {
      String step = e.substring("exec ".length());
      if (!succeeded.contains(step.substring(0, step.indexOf(':')))) {
        out.add("rollback " + step);
      }
    }
    Collections.reverse(out);
    return out;
  }

  @Test
  void failureInAParallelTreeUndoesUnfinishedMembersNewestFirstAndChildrenBeforeParents()
      throws Exception {
    Harness h = harness(ScriptedStep.registry()).with(b -> b.coreWorkers(3));
    h.env.spawns.put("r:B", List.of("r.0", "r.1"));
    h.env.spawns.put("r.0:B", List.of("r.0.0", "r.0.1"));
    h.env.spawns.put("r.1:B", List.of("r.1.0", "r.1.1"));
    h.env.failNext("r.1.1:B", 1);
    h.start();
    long root = h.executor.submit(new ScriptedStep("r"));
    assertEquals(ProcedureState.ROLLEDBACK, h.await(root).state());

    List<String> journal = h.env.journal();
    Map<String, List<String>> execByMember = new HashMap<>();
    Map<String, List<String>> rollbackByMember = new HashMap<>();
    int lastExec = -1;
    int firstRollback = Integer.MAX_VALUE;
    for (int i = 0; i < journal.size(); i++) {
      String e = journal.get(i);
      String step = e.substring(e.indexOf(' ') + 1);
      String member = step.substring(0, step.indexOf(':'));
      if (e.startsWith("exec ")) {
        execByMember.computeIfAbsent(member, k -> new ArrayList<>()).add(step);
        lastExec = i;
      } else {
        rollbackByMember.computeIfAbsent(member, k -> new ArrayList<>()).add(step);
        firstRollback = Math.min(firstRollback, i);
      }
    }
    assertTrue(lastExec < firstRollback, "no member runs while the stack unwinds: " + journal);
    for (Map.Entry<String, List<String>> m : execByMember.entrySet()) {
      String member = m.getKey();
      ProcedureState state = h.executor.getInfo(h.env.ids.get(member)).orElseThrow().state();
      List<String> undone = rollbackByMember.getOrDefault(member, List.of());
      if (state == ProcedureState.SUCCESS) {
        assertTrue(undone.isEmpty(), "succeeded " + member + " rolled back: " + journal);
        assertTrue(!member.equals("r"), "the root cannot succeed");
      } else {
        assertEquals(ProcedureState.ROLLEDBACK, state, member);
        List<String> reversed = new ArrayList<>(m.getValue());
        Collections.reverse(reversed);
        assertEquals(reversed, undone, member + " undoes its executed steps newest first");
      }
    }
    // a parent's spawning step is undone after every rollback of its children (a parent whose
    // whole subtree succeeded before the failure is not rolled back at all)
    for (String parent : List.of("r", "r.0", "r.1")) {
      if (!journal.contains("exec " + parent + ":B")
          || h.executor.getInfo(h.env.ids.get(parent)).orElseThrow().state()
              == ProcedureState.SUCCESS) {
        continue;
      }
      int parentB = journal.indexOf("rollback " + parent + ":B");
      assertTrue(parentB >= 0, parent + ":B undone: " + journal);
      for (int i = 0; i < journal.size(); i++) {
        if (journal.get(i).startsWith("rollback " + parent + ".")) {
          assertTrue(i < parentB, journal.get(i) + " after " + parent + ":B: " + journal);
        }
      }
    }
    assertTrue(journal.contains("rollback r.1.1:B"), "the failing step is undone too");
  }

  /**
   * Crashes the executor at every store write of the unwind (before and after the write reaches the
   * store), restarts on the same store, and checks the unwind continues: the same order, no step
   * undone twice except the one whose persist was lost, no forward step run again, and the tree's
   * records gone after the retention.
   */
  @Test
  void crashDuringRollbackContinuesFromTheLastPersistedUndo() throws Exception {
    Harness clean = harness(ScriptedStep.registry()).with(b -> b.coreWorkers(1));
    scriptSequentialTree(clean.env);
    List<Integer> writesAtRollback = new CopyOnWriteArrayList<>();
    clean.env.onRecord.put(
        "rollback r.1.0:B", () -> writesAtRollback.add(clean.store.writeCount()));
    clean.start();
    long cleanRoot = clean.executor.submit(new ScriptedStep("r"));
    assertEquals(ProcedureState.ROLLEDBACK, clean.await(cleanRoot).state());
    List<String> expected = expectedRollback(clean, Set.of("r.0"));
    List<String> forward = clean.env.journal("exec ");
    int firstUnwindWrite = writesAtRollback.get(0); // the root's FAILED record
    int lastWrite = clean.store.writeCount();
    assertTrue(lastWrite - firstUnwindWrite >= expected.size(), "one write per undone step");

    int runs = 0;
    for (int crashAt = firstUnwindWrite; crashAt <= lastWrite; crashAt++) {
      for (CrashInjectingStore.Mode mode : CrashInjectingStore.Mode.values()) {
        String run = "crash " + mode + " at write " + crashAt;
        Harness h =
            harness(ScriptedStep.registry())
                .with(
                    b ->
                        b.coreWorkers(1)
                            .completedRetention(Duration.ofHours(1))
                            .cleanerInterval(Duration.ofMillis(20)));
        scriptSequentialTree(h.env);
        h.store.arm(mode, crashAt - 1);
        h.start();
        long root = h.executor.submit(new ScriptedStep("r"));
        Harness.eventually(run + ": the executor stops itself on the crash")
            .until(() -> !h.store.isArmed() && !h.executor.isRunning());
        h.start();
        ProcedureInfo info = h.await(root);
        runs++;

        assertEquals(ProcedureState.ROLLEDBACK, info.state(), run);
        List<String> undone = h.env.journal("rollback");
        assertEquals(expected, withoutRepeats(undone), run + ": " + undone);
        int repeats = undone.size() - expected.size();
        assertTrue(
            repeats <= (mode == CrashInjectingStore.Mode.BEFORE_PERSIST ? 1 : 0),
            run + ": undone more often than the crash explains: " + undone);
        assertEquals(forward, h.env.journal("exec "), run + ": forward steps ran again");

        Harness.eventually(run + ": tree completed").until(() -> h.executor.liveCount() == 0);
        h.advanceClock(Duration.ofHours(2));
        Harness.eventually(run + ": records left after the retention")
            .untilAsserted(
                () ->
                    assertEquals(
                        "[] []",
                        h.memory.load().records().stream().map(r -> r.procId()).toList()
                            + " "
                            + h.executor.list()));
      }
    }
    assertTrue(runs >= 2 * expected.size(), "runs: " + runs);
  }

  private static List<String> withoutRepeats(List<String> events) {
    List<String> out = new ArrayList<>();
    for (String e : events) {
      if (out.isEmpty() || !out.get(out.size() - 1).equals(e)) {
        out.add(e);
      }
    }
    return out;
  }

  @Test
  void stateThatCannotBeRolledBackIsRetriedWithGrowingBackoffInsteadOfRollingBack()
      throws Exception {
    Harness h =
        harness(Steps.registry())
            .with(b -> b.retryBackoff(Duration.ofMillis(40), Duration.ofMillis(100)));
    List<Long> attempts = new CopyOnWriteArrayList<>();
    h.env.onRecord.put("exec p:B", () -> attempts.add(System.nanoTime()));
    h.env.failNext("p:B", 3);
    h.start();
    Steps p = new Steps("p");
    p.unsupportedB = true;
    long id = h.executor.submit(p);
    ProcedureInfo info = h.await(id);

    assertEquals(ProcedureState.SUCCESS, info.state());
    assertEquals(
        List.of("exec p:A", "exec p:B", "exec p:B", "exec p:B", "exec p:B", "exec p:C"),
        h.env.journal());
    assertEquals(4, attempts.size());
    long[] minimumWaits = {40, 80, 100}; // doubling from 40 ms, capped at 100 ms
    for (int i = 1; i < attempts.size(); i++) {
      long gapMillis = (attempts.get(i) - attempts.get(i - 1)) / 1_000_000;
      assertTrue(
          gapMillis >= minimumWaits[i - 1] - 2,
          "retry " + i + " came after " + gapMillis + " ms, before its backoff");
    }
  }

  @Test
  void retryBackoffDoublesAndIsCapped() {
    ExecutorConfig config =
        ProcedureExecutor.builder(
                new TestEnv(),
                new dev.baton.procedure.store.InMemoryProcedureStore(),
                Steps.registry())
            .retryBackoff(Duration.ofMillis(100), Duration.ofSeconds(30))
            .config();
    long previous = 0;
    for (int attempt = 1; attempt < 200; attempt++) {
      long wait = config.retryBackoffMillis(attempt);
      assertTrue(wait >= previous, "backoff shrank at attempt " + attempt);
      assertTrue(wait <= 30_000, "backoff above the cap at attempt " + attempt + ": " + wait);
      if (previous > 0 && previous * 2 <= 30_000) {
        assertEquals(previous * 2, wait, "attempt " + attempt);
      }
      previous = wait;
    }
    assertEquals(100, config.retryBackoffMillis(1));
    assertEquals(30_000, config.retryBackoffMillis(Integer.MAX_VALUE));
  }

  @Test
  void failingRollbackStepIsRetriedUntilItSucceedsKeepingTheOrder() throws Exception {
    Harness h =
        harness(ScriptedStep.registry())
            .with(b -> b.retryBackoff(Duration.ofMillis(5), Duration.ofMillis(20)));
    h.env.failNext("r:C", 1);
    h.env.failNext("rollback r:B", 2);
    h.start();
    long id = h.executor.submit(new ScriptedStep("r"));
    assertEquals(ProcedureState.ROLLEDBACK, h.await(id).state());
    assertEquals(
        List.of("rollback r:C", "rollback r:B", "rollback r:B", "rollback r:B", "rollback r:A"),
        h.env.journal("rollback"));
  }

  @Test
  void membersNeverRunAfterTheirTreeFailed() throws Exception {
    Harness h = harness(ScriptedStep.registry()).with(b -> b.coreWorkers(2));
    h.env.spawns.put("r:A", List.of("r.0", "r.1"));
    // r.0 fails while r.1 is held in its first step: r.1 must not start B afterwards
    java.util.concurrent.CountDownLatch release = h.env.gate("r.1:A");
    java.util.concurrent.CountDownLatch r1Started = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch r0MayFail = h.env.gate("r.0:A");
    h.env.onRecord.put(
        "exec r.1:A",
        () -> {
          r1Started.countDown();
          r0MayFail.countDown();
        });
    h.env.failNext("r.0:A", 1);
    h.start();
    long id = h.executor.submit(new ScriptedStep("r"));
    assertTrue(r1Started.await(20, java.util.concurrent.TimeUnit.SECONDS));
    Harness.eventually("r.0 failed")
        .until(
            () ->
                h.executor
                    .getInfo(h.env.ids.getOrDefault("r.0", -1L))
                    .map(i -> i.state() == ProcedureState.FAILED)
                    .orElse(false));
    assertTrue(h.env.journal("rollback").isEmpty(), "no unwind while r.1 runs");
    release.countDown();
    assertEquals(ProcedureState.ROLLEDBACK, h.await(id).state());
    assertEquals(List.of(), h.env.journal("exec r.1:B"));
    Set<String> undone = new HashSet<>(h.env.journal("rollback"));
    assertTrue(undone.contains("rollback r.1:A"), "r.1's running step is undone: " + undone);
    assertNotNull(h.executor.getInfo(h.env.ids.get("r.1")).orElse(null));
  }
}
