package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.procedure.store.FileProcedureStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two restarts on a {@link FileProcedureStore}, the second before a state machine's next step: the
 * state that was due at the first restart is undone in the place where that restart counted it,
 * after the steps another member recorded in between.
 *
 * <p>Root r spawns p and q (three-state {@link ScriptedStep}s). The first executor is stopped while
 * p runs B and q runs A, both held at gates: the first restart counts each due state as run. The
 * second executor runs q's A and B while p stays held in B, and is stopped while q is held in C:
 * the second restart counts q's C, and finds p's B counted. The third executor fails the tree: q's
 * B, recorded after the first restart, is undone before p's B, counted at it.
 */
@Timeout(60)
class DueStateTwoRestartsTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  /** Workers while p and q are held at gates at once. */
  private static final int TWO_WORKERS = 2;

  @TempDir Path dir;
  private final TestEnv env = new TestEnv();
  private final List<ProcedureExecutor<TestEnv>> executors = new ArrayList<>();
  private final List<CountDownLatch> gates = new ArrayList<>();

  @AfterEach
  void stopAll() {
    executors.forEach(ProcedureExecutor::stop);
    gates.forEach(CountDownLatch::countDown);
  }

  private ProcedureExecutor<TestEnv> start(int workers) throws IOException {
    ProcedureExecutor<TestEnv> executor =
        ProcedureExecutor.builder(
                env,
                new FileProcedureStore(dir, FileProcedureStore.Config.defaults()),
                ScriptedStep.registry())
            .coreWorkers(workers)
            .maxWorkers(workers)
            .build();
    executors.add(executor);
    executor.start();
    return executor;
  }

  private void hold(String step) {
    gates.add(env.gate(step));
  }

  /** Waits until {@code event} was journaled {@code times} times. */
  private void awaitJournaled(String event, int times) {
    Awaitility.await(event + " x" + times)
        .atMost(WAIT)
        .until(() -> Collections.frequency(env.journal(), event) >= times);
  }

  @Test
  void aDueStateCountedAtARestartIsUndoneAfterTheStepsRecordedLater() throws Exception {
    env.spawns.put("r:A", List.of("p", "q"));
    hold("p:B");
    hold("q:A");
    ProcedureExecutor<TestEnv> first = start(TWO_WORKERS);
    long root = first.submit(new ScriptedStep("r"));
    awaitJournaled("exec p:B", 1);
    awaitJournaled("exec q:A", 1);
    first.stop();

    env.gates.remove("q:A");
    hold("p:B");
    hold("q:C");
    ProcedureExecutor<TestEnv> second = start(TWO_WORKERS);
    awaitJournaled("exec p:B", 2);
    awaitJournaled("exec q:C", 1); // q's B is durable before its C starts
    second.stop();

    env.gates.clear();
    env.failNext("p:B", Integer.MAX_VALUE);
    env.failNext("q:C", Integer.MAX_VALUE);
    ProcedureExecutor<TestEnv> third = start(1);
    ProcedureInfo info = third.await(root, WAIT);

    assertEquals(ProcedureState.ROLLEDBACK, info.state(), env.journal().toString());
    assertEquals(
        List.of(
            "rollback q:C",
            "rollback q:B",
            "rollback q:A",
            "rollback p:B",
            "rollback p:A",
            "rollback r:A"),
        env.journal("rollback "),
        "q's B, recorded after the first restart, is undone before p's B, counted at it: "
            + env.journal());
  }
}
