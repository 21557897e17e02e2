package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.testing.CrashInjectingStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A crash at any store write of a failing tree, restarted on the same store: rollback undoes only
 * states whose step ran, or that were due in a RUNNABLE record at a restart (they may have run with
 * their outcome lost; never the due state of a member that was idle when its tree failed), and a
 * parent's spawning state after all of its children's undos.
 */
@Timeout(60)
class CrashInFailedTreeTest {
  private static final int MAX_RESTARTS = 3;
  private final List<Harness> harnesses = new ArrayList<>();

  @AfterEach
  void tearDown() {
    harnesses.forEach(Harness::close);
  }

  @Test
  void rollbackAfterACrashNeverUndoesAStepThatDidNotRun() throws Exception {
    int writes = cleanRunWrites();
    int runs = 0;
    for (int workers = 1; workers <= 2; workers++) {
      for (int crashAt = 1; crashAt < writes; crashAt++) { // write 0 is the submission
        for (CrashInjectingStore.Mode mode : CrashInjectingStore.Mode.values()) {
          runWithCrash(workers, mode, crashAt);
          runs++;
        }
      }
    }
    assertTrue(runs > writes, "runs: " + runs);
  }

  private int cleanRunWrites() throws Exception {
    Harness h = harness(1);
    h.start();
    assertEquals(ProcedureState.ROLLEDBACK, h.await(h.executor.submit(tree())).state());
    return h.store.writeCount();
  }

  private void runWithCrash(int workers, CrashInjectingStore.Mode mode, int skip) throws Exception {
    String run = workers + " workers, crash " + mode + " after " + skip + " writes";
    Harness h = harness(workers);
    h.start();
    long root = h.executor.submit(tree());
    h.store.arm(mode, skip - 1);
    ProcedureInfo info = h.awaitOrCrash(root);
    Set<String> mayHaveRun = new HashSet<>();
    for (int restart = 0; info == null && restart < MAX_RESTARTS; restart++) {
      h.executor.stop();
      mayHaveRun.addAll(TreeStep.storedRunnableDueStates(h.memory));
      h.start();
      info = h.awaitOrCrash(root);
    }
    assertTrue(info != null, run + ": never finished");
    assertEquals(ProcedureState.ROLLEDBACK, info.state(), run);
    List<String> journal = h.env.journal();
    List<String> executed = new ArrayList<>();
    for (String event : journal) {
      String step = event.substring(event.indexOf(' ') + 1);
      if (event.startsWith("exec ")) {
        executed.add(step);
      } else {
        assertTrue(
            executed.contains(step) || mayHaveRun.contains(step),
            run + ": " + step + " undone, never ran nor was due at a restart: " + journal);
      }
    }
    int parentB = journal.lastIndexOf("rollback r:B");
    for (int i = 0; i < journal.size(); i++) {
      if (journal.get(i).startsWith("rollback r.")) {
        assertTrue(i < parentB, run + ": " + journal.get(i) + " after r:B: " + journal);
      }
    }
  }

  /** r runs A, B (spawns r.0 and r.1); r.1 fails in its first state, every time. */
  private static TreeStep tree() {
    return new TreeStep("r", 1, 2);
  }

  private Harness harness(int workers) {
    Harness h = new Harness(TreeStep.registry()).with(b -> b.coreWorkers(workers));
    h.env.failNext("r.1:A", Integer.MAX_VALUE); // fails again after a lost write
    harnesses.add(h);
    return h;
  }
}
