package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** abort(procId): an accepted abort fails the procedure with an abort cause and rolls it back. */
@Timeout(60)
class AbortTest {

  /** A scripted step whose abort() the env decides: refused unless "accept" is set. */
  public static final class Stubborn extends ScriptedStep {
    public Stubborn() {}

    Stubborn(String name) {
      super(name);
    }

    @Override
    protected boolean abort(TestEnv env) {
      env.record("asked to abort " + name);
      return false;
    }
  }

  private final Harness h =
      new Harness(
              ScriptedStep.registry()
                  .register("Steps", Steps.class, Steps::new)
                  .register("Stubborn", Stubborn.class, Stubborn::new))
          .with(b -> b.coreWorkers(2));

  @AfterEach
  void tearDown() {
    h.close();
  }

  private void awaitState(long id, ProcedureState state) {
    Harness.eventually(id + " in " + state)
        .until(() -> h.executor.getInfo(id).orElseThrow().state() == state);
  }

  @Test
  void abortOfASuspendedProcedureRollsBackEveryStateThatRan() throws Exception {
    h.env.failNext("suspend p:B", 1);
    h.start();
    long id = h.executor.submit(new ScriptedStep("p"));
    awaitState(id, ProcedureState.WAITING);

    assertTrue(h.executor.abort(id));
    ProcedureInfo info = h.await(id);
    assertEquals(ProcedureState.ROLLEDBACK, info.state());
    assertTrue(info.failure().startsWith("aborted by"), info.failure());
    assertEquals(List.of("exec p:A", "exec p:B", "rollback p:B", "rollback p:A"), h.env.journal());
  }

  @Test
  void abortDuringAStepLetsTheStepEndThenRollsBackWithoutRunningFurther() throws Exception {
    CountDownLatch inB = new CountDownLatch(1);
    h.env.onRecord.put("exec p:B", inB::countDown);
    CountDownLatch release = h.env.gate("p:B");
    h.start();
    long id = h.executor.submit(new ScriptedStep("p"));
    assertTrue(inB.await(20, TimeUnit.SECONDS));

    assertTrue(h.executor.abort(id));
    release.countDown();
    ProcedureInfo info = h.await(id);
    assertEquals(ProcedureState.ROLLEDBACK, info.state());
    assertTrue(info.failure().startsWith("aborted by"), info.failure());
    assertEquals(List.of("exec p:A", "exec p:B", "rollback p:B", "rollback p:A"), h.env.journal());
  }

  @Test
  void abortOfARootWaitingForAChildRollsBackTheWholeTree() throws Exception {
    h.env.spawns.put("r:B", List.of("r.0"));
    CountDownLatch childRunning = new CountDownLatch(1);
    h.env.onRecord.put("exec r.0:A", childRunning::countDown);
    CountDownLatch release = h.env.gate("r.0:A");
    h.start();
    long root = h.executor.submit(new ScriptedStep("r"));
    assertTrue(childRunning.await(20, TimeUnit.SECONDS));
    assertEquals(ProcedureState.WAITING, h.executor.getInfo(root).orElseThrow().state());

    assertTrue(h.executor.abort(root));
    // the abort takes effect at the root's next turn; the running child's step goes on meanwhile
    awaitState(root, ProcedureState.FAILED);
    assertTrue(h.env.journal("rollback").isEmpty(), "no unwind while the child runs");
    release.countDown();
    ProcedureInfo info = h.await(root);
    assertEquals(ProcedureState.ROLLEDBACK, info.state());
    assertTrue(info.failure().startsWith("aborted by"), info.failure());
    assertEquals(
        List.of("rollback r.0:A", "rollback r:B", "rollback r:A"),
        h.env.journal("rollback"),
        h.env.journal()::toString);
    assertEquals(List.of(), h.env.journal("exec r.0:B"), "the child stops after its step");
    assertEquals(
        ProcedureState.ROLLEDBACK, h.executor.getInfo(h.env.ids.get("r.0")).orElseThrow().state());
  }

  @Test
  void abortOfAProcedureWaitingForATimeoutRollsItBack() throws Exception {
    h.env.waits.put("p:A", 3_600_000L);
    h.start();
    long id = h.executor.submit(new ScriptedStep("p"));
    awaitState(id, ProcedureState.WAITING_TIMEOUT);
    assertTrue(h.executor.abort(id));
    assertEquals(ProcedureState.ROLLEDBACK, h.await(id).state());
    assertEquals(List.of("exec p:A", "rollback p:A"), h.env.journal());
  }

  @Test
  void abortOfAFinishedOrUnknownProcedureReturnsFalse() throws Exception {
    h.start();
    long id = h.executor.submit(new ScriptedStep("p"));
    assertEquals(ProcedureState.SUCCESS, h.await(id).state());
    Harness.eventually("tree completed").until(() -> h.executor.liveCount() == 0);
    assertFalse(h.executor.abort(id), "finished");
    assertFalse(h.executor.abort(id + 1000), "unknown");
    assertEquals(ProcedureState.SUCCESS, h.executor.getInfo(id).orElseThrow().state());
    assertTrue(h.env.journal("rollback").isEmpty());
  }

  @Test
  void abortOfASucceededChildWhoseRootStillRunsReturnsFalse() throws Exception {
    h.env.spawns.put("r:A", List.of("r.0"));
    CountDownLatch rootInB = new CountDownLatch(1);
    h.env.onRecord.put("exec r:B", rootInB::countDown);
    CountDownLatch release = h.env.gate("r:B");
    h.start();
    long root = h.executor.submit(new ScriptedStep("r"));
    assertTrue(rootInB.await(20, TimeUnit.SECONDS));
    long child = h.env.ids.get("r.0");
    assertEquals(ProcedureState.SUCCESS, h.executor.getInfo(child).orElseThrow().state());

    assertFalse(h.executor.abort(child));
    release.countDown();
    assertEquals(ProcedureState.SUCCESS, h.await(root).state());
  }

  @Test
  void abortRefusedByTheProcedureReturnsFalseAndChangesNothing() throws Exception {
    h.env.failNext("suspend s:B", 1);
    h.start();
    long id = h.executor.submit(new Stubborn("s"));
    awaitState(id, ProcedureState.WAITING);

    assertFalse(h.executor.abort(id));
    assertTrue(h.env.journal().contains("asked to abort s"), "the procedure was asked");
    assertTrue(h.executor.wake(id));
    ProcedureInfo info = h.await(id);
    assertEquals(ProcedureState.SUCCESS, info.state());
    assertEquals(null, info.failure());
    assertTrue(h.env.journal("rollback").isEmpty());
  }

  @Test
  void stateThatCannotBeRolledBackRefusesAbortByDefault() throws Exception {
    CountDownLatch inB = new CountDownLatch(1);
    h.start();
    Steps p = new Steps("p");
    p.unsupportedB = true;
    // hold p in B: its journal hook blocks until the abort was tried
    CountDownLatch tried = new CountDownLatch(1);
    h.env.onRecord.put(
        "exec p:B",
        () -> {
          inB.countDown();
          try {
            tried.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    long id = h.executor.submit(p);
    assertTrue(inB.await(20, TimeUnit.SECONDS));
    boolean aborted = h.executor.abort(id);
    tried.countDown();
    assertFalse(aborted, "B cannot be rolled back, so the abort is refused");
    assertEquals(ProcedureState.SUCCESS, h.await(id).state());
  }
}
