package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Pipelined store writes: a worker hands a step's outcome to {@code writeAsync} and runs other
 * procedures meanwhile, but a procedure's next step (and what its step causes) waits until that
 * outcome is durable; a failed write stops the executor.
 */
@Timeout(30)
class PipelinedWritesTest {
  private final TestEnv env = new TestEnv();
  private final HeldWritesStore store = new HeldWritesStore();
  private final ProcedureExecutor<TestEnv> executor =
      ProcedureExecutor.builder(env, store, Steps.registry()).coreWorkers(1).maxWorkers(1).build();

  @AfterEach
  void stop() {
    executor.stop();
  }

  @Test
  void oneWorkerRunsOtherProceduresWhileAWriteIsInFlightButNoNextStepBeforeItIsDurable()
      throws Exception {
    executor.start();
    long p = executor.submit(new Steps("p"));
    long q = executor.submit(new Steps("q"));
    // the only worker ran both first steps: it did not wait for p's write to become durable
    Harness.eventually("both first steps handed over").until(() -> store.heldCount() == 2);
    assertEquals(List.of("exec p:A", "exec q:A"), env.journal());
    assertEquals(ProcedureState.RUNNABLE, executor.getInfo(p).orElseThrow().state());

    store.releaseOldest(); // p:A durable: p's next step may run, q's may not
    Harness.eventually("p:B handed over").until(() -> env.journal().contains("exec p:B"));
    Harness.eventually("p:B write held").until(() -> store.heldCount() == 2);
    assertEquals(List.of("exec p:A", "exec q:A", "exec p:B"), env.journal());

    assertEquals(ProcedureState.SUCCESS, releaseUntilFinished(p).state());
    assertEquals(ProcedureState.SUCCESS, releaseUntilFinished(q).state());
    assertEquals(6, env.journal().size(), "each state ran once: " + env.journal());
  }

  @Test
  void aProcedureQueuedAgainWhileItsWriteIsInFlightDoesNotBlockTheWorker() throws Exception {
    executor.start();
    long p = executor.submit(new Steps("p"));
    Harness.eventually("p:A held").until(() -> store.heldCount() == 1);
    assertTrue(executor.wake(p)); // queues p again while its step is not finished
    long q = executor.submit(new Steps("q"));
    // the only worker polled p again: it must leave it (p is queued again later) and run q
    Harness.eventually("q:A ran").until(() -> env.journal().contains("exec q:A"));
    assertEquals(ProcedureState.SUCCESS, releaseUntilFinished(p).state());
    assertEquals(ProcedureState.SUCCESS, releaseUntilFinished(q).state());
    assertEquals(6, env.journal().size(), "each state ran once: " + env.journal());
  }

  @Test
  void aWorkerBusyInALongStepDoesNotHoldBackTheWritesItHandedOver() throws Exception {
    executor.start();
    long p = executor.submit(new Steps("p"));
    Harness.eventually("p:A held").until(() -> store.heldCount() == 1);
    CountDownLatch gate = env.gate("q:A");
    long q = executor.submit(new Steps("q"));
    Harness.eventually("the only worker is inside q:A")
        .until(() -> executor.runningCount() == 1 && executor.queuedCount() == 0);
    store.releaseOldest(); // p:A durable while the worker that wrote it is busy in q:A
    Harness.eventually("p queued for its next step without that worker")
        .until(() -> executor.queuedCount() == 1);
    gate.countDown();
    assertEquals(ProcedureState.SUCCESS, releaseUntilFinished(p).state());
    assertEquals(ProcedureState.SUCCESS, releaseUntilFinished(q).state());
  }

  @Test
  void childrenAreQueuedOnlyOnceTheSpawningStepIsDurable() throws Exception {
    executor.start();
    long p = executor.submit(new Steps("p").withChildren(2));
    Harness.eventually("p:A held").until(() -> store.heldCount() == 1);
    store.releaseOldest();
    Harness.eventually("p:B held").until(() -> store.heldCount() == 1);
    assertEquals(List.of("exec p:A", "exec p:B"), env.journal());
    assertEquals(1, executor.liveCount(), "children are not known before p:B is durable");

    store.releaseOldest();
    Harness.eventually("children ran").until(() -> env.journal("exec p.").size() == 2);
    assertEquals(ProcedureState.SUCCESS, releaseUntilFinished(p).state());
    List<String> journal = env.journal();
    assertEquals("exec p:C", journal.get(journal.size() - 1), journal.toString());
  }

  @Test
  void aFailedPipelinedWriteStopsTheExecutorBeforeTheNextStep() throws Exception {
    executor.start();
    long p = executor.submit(new Steps("p"));
    Harness.eventually("p:A held").until(() -> store.heldCount() == 1);
    store.failOldest(new IOException("disk gone"));
    Harness.eventually("executor stopped").until(() -> !executor.isRunning());
    assertTrue(executor.failure().orElseThrow().getMessage().contains("disk gone"));
    assertEquals(List.of("exec p:A"), env.journal());
    assertEquals(0, store.heldCount());
    assertEquals(
        ProcedureState.RUNNABLE,
        new ProcedureCodec(Steps.registry()).decode(p, storedRecord(p)).getState());
  }

  @Test
  void theFailStopListenerHearsTheCauseOnceTheExecutorHasStopped() throws Exception {
    CompletableFuture<Throwable> heard = new CompletableFuture<>();
    CompletableFuture<Boolean> runningWhenHeard = new CompletableFuture<>();
    HeldWritesStore failing = new HeldWritesStore();
    @SuppressWarnings("unchecked")
    ProcedureExecutor<TestEnv>[] watched = new ProcedureExecutor[1];
    watched[0] =
        ProcedureExecutor.builder(env, failing, Steps.registry())
            .coreWorkers(1)
            .onFailStop(
                cause -> {
                  runningWhenHeard.complete(watched[0].isRunning());
                  heard.complete(cause);
                })
            .build();
    try {
      watched[0].start();
      watched[0].submit(new Steps("p"));
      Harness.eventually("p:A held").until(() -> failing.heldCount() == 1);
      failing.failOldest(new IOException("disk gone"));
      assertTrue(heard.get().getMessage().contains("disk gone"), heard.get().toString());
      assertEquals(false, runningWhenHeard.get(), "heard before the executor stopped");
    } finally {
      watched[0].stop();
    }
  }

  /** Makes held writes durable, oldest first, until the procedure finished. */
  private ProcedureInfo releaseUntilFinished(long procId) throws Exception {
    CompletableFuture<ProcedureInfo> finished = executor.whenFinished(procId);
    while (!finished.isDone()) {
      Harness.eventually("a write to release or " + procId + " finished")
          .until(() -> store.heldCount() > 0 || finished.isDone());
      if (store.heldCount() > 0) {
        store.releaseOldest();
      }
    }
    return finished.get();
  }

  private byte[] storedRecord(long procId) throws IOException {
    store.start();
    return store.load().records().stream()
        .filter(r -> r.procId() == procId)
        .findFirst()
        .orElseThrow()
        .data();
  }
}
