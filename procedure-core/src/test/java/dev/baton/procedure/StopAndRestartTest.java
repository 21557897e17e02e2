package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.testing.CrashInjectingStore;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A step cut short by stop() (or running while the executor stops) is never recorded as done: the
 * stored state does not advance and the step runs again after a restart. After a store failure the
 * executor starts no further step.
 */
@Timeout(60)
class StopAndRestartTest {
  private final Harness h = new Harness(ScriptedStep.registry()).with(b -> b.coreWorkers(1));

  @AfterEach
  void tearDown() {
    h.close();
  }

  private CountDownLatch started(String event) {
    CountDownLatch latch = new CountDownLatch(1);
    h.env.onRecord.put(event, latch::countDown);
    return latch;
  }

  @Test
  void stepInterruptedByStopIsNotRecordedAndRunsAgainAfterRestart() throws Exception {
    CountDownLatch inB = started("exec p:B");
    CountDownLatch gate = h.env.gate("p:B");
    h.start();
    long id = h.executor.submit(new ScriptedStep("p"));
    assertTrue(inB.await(20, TimeUnit.SECONDS));

    h.executor.stop(); // interrupts the worker blocked in B
    Procedure<?> stored = h.stored(id);
    assertEquals(ProcedureState.RUNNABLE, stored.getState());
    assertEquals("B", stored.getStepName(), "the stored state did not advance past B");

    gate.countDown();
    h.start();
    assertEquals(ProcedureState.SUCCESS, h.await(id).state());
    assertEquals(
        List.of("exec p:A", "exec p:B", "exec p:B", "exec p:C"),
        h.env.journal(),
        "B ran again after the restart");
  }

  @Test
  void stepThatIgnoresTheInterruptAndEndsAfterStopIsNotRecorded() throws Exception {
    CountDownLatch inB = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    h.env.onRecord.put(
        "exec p:B",
        () -> {
          inB.countDown();
          boolean done = false;
          while (!done) {
            try {
              done = release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException swallowed) {
              // a careless library: the interrupt is lost
            }
          }
        });
    h.start();
    long id = h.executor.submit(new ScriptedStep("p"));
    assertTrue(inB.await(20, TimeUnit.SECONDS));

    ProcedureExecutor<TestEnv> first = h.executor;
    Thread stopper = new Thread(first::stop, "test-stopper");
    stopper.start();
    Harness.eventually("executor stopping").until(() -> !first.isRunning());
    release.countDown(); // B now ends normally, after the executor began to stop
    stopper.join(TimeUnit.SECONDS.toMillis(20));
    assertTrue(!stopper.isAlive(), "stop() returned");

    Procedure<?> stored = h.stored(id);
    assertEquals(ProcedureState.RUNNABLE, stored.getState());
    assertEquals("B", stored.getStepName(), "the stored state did not advance past B");

    h.env.onRecord.remove("exec p:B");
    h.start();
    assertEquals(ProcedureState.SUCCESS, h.await(id).state());
    assertEquals(List.of("exec p:A", "exec p:B", "exec p:B", "exec p:C"), h.env.journal());
  }

  @Test
  void noStepStartsAfterAStoreWriteFailed() throws Exception {
    CountDownLatch inA = started("exec p:A");
    CountDownLatch gate = h.env.gate("p:A");
    h.start();
    long p = h.executor.submit(new ScriptedStep("p"));
    assertTrue(inA.await(20, TimeUnit.SECONDS));
    long q = h.executor.submit(new ScriptedStep("q")); // queued behind p on the one worker
    h.store.arm(CrashInjectingStore.Mode.BEFORE_PERSIST); // p:A's outcome is lost
    gate.countDown();

    Harness.eventually("executor stopped itself").until(() -> !h.executor.isRunning());
    h.executor.stop(); // returns once the stop finished
    assertTrue(h.executor.failure().isPresent());
    assertEquals(List.of("exec p:A"), h.env.journal(), "a step ran after the store failed");

    h.start();
    assertEquals(ProcedureState.SUCCESS, h.await(p).state());
    assertEquals(ProcedureState.SUCCESS, h.await(q).state());
    assertEquals(2, h.env.journal("exec p:A").size(), "p:A's lost outcome makes it run again");
  }
}
