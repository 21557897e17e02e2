package dev.baton.procedure;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.scheduler.FairScheduler;
import dev.baton.procedure.scheduler.LockMode;
import dev.baton.procedure.store.InMemoryProcedureStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** FairScheduler and multi-lock procedures through a running executor. */
@Timeout(60)
class SchedulingExecutorTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private final LockEnv env = new LockEnv();
  private final InMemoryProcedureStore store = new InMemoryProcedureStore();
  private ProcedureExecutor<LockEnv> executor;

  private void start(int workers) throws Exception {
    executor =
        ProcedureExecutor.builder(env, store, LockStep.registry())
            .scheduler(new FairScheduler())
            .coreWorkers(workers)
            .maxWorkers(workers)
            .build();
    executor.start();
  }

  @AfterEach
  void stop() {
    if (executor != null) {
      executor.stop();
    }
  }

  /** Occupies the only worker until the gate opens, so everything submitted meanwhile queues. */
  private void blockTheWorker() {
    executor.submit(new LockStep("gate").gate("g"));
    await().atMost(WAIT).until(() -> env.indexOf("exec gate:0") >= 0);
  }

  @Test
  void floodOfYieldingProceduresOnOneResourceDelaysAnotherResourceByABoundedNumberOfSteps()
      throws Exception {
    start(1);
    blockTheWorker();
    List<Long> flood = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      flood.add(executor.submit(new LockStep("a" + i).shared("region:db/a").steps(3).yielding()));
    }
    long b = executor.submit(new LockStep("b").shared("region:db/b").steps(3));
    env.open("g");
    assertEquals(ProcedureState.SUCCESS, executor.await(b, WAIT).state());
    int stepsBefore = env.indexOf("exec b:2") - env.indexOf("exec gate:0");
    // round-robin between the two queues: b's three steps alternate with one step of the flood
    assertTrue(stepsBefore <= 8, "b finished " + stepsBefore + " steps after the gate opened");
    for (long id : flood) {
      assertEquals(ProcedureState.SUCCESS, executor.await(id, WAIT).state());
    }
  }

  @Test
  void higherPriorityClassesRunFirstNodeDatabaseRegionOther() throws Exception {
    start(1);
    blockTheWorker();
    executor.submit(new LockStep("other"));
    executor.submit(new LockStep("region").exclusive("region:db/r1"));
    executor.submit(new LockStep("database").shared("database:db"));
    long last = executor.submit(new LockStep("node").exclusive("node:n1"));
    env.open("g");
    executor.await(last, WAIT);
    await().atMost(WAIT).until(() -> env.journal().size() == 5);
    assertEquals(
        List.of("exec gate:0", "exec node:0", "exec database:0", "exec region:0", "exec other:0"),
        env.journal());
  }

  @Test
  void multiLockProceduresInRandomOrderNeverDeadlock() throws Exception {
    long seed = Long.getLong("baton.seed", System.nanoTime());
    Random random = new Random(seed);
    start(4);
    List<String> resources = new ArrayList<>();
    for (int d = 0; d < 2; d++) {
      resources.add("database:db" + d);
      for (int r = 0; r < 3; r++) {
        resources.add("region:db" + d + "/r" + r);
      }
    }
    for (int n = 0; n < 3; n++) {
      resources.add("node:n" + n);
    }
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      List<String> pick = new ArrayList<>(resources);
      Collections.shuffle(pick, random);
      LockStep p = new LockStep("m" + i).steps(1 + random.nextInt(3));
      for (String r : pick.subList(0, 2 + random.nextInt(3))) {
        p.lock(r, random.nextInt(4) == 0 ? LockMode.SHARED : LockMode.EXCLUSIVE);
      }
      if (random.nextBoolean()) {
        p.oneByOne(); // one acquire call per lock, in this random order
      }
      if (random.nextInt(5) == 0) {
        p.hold();
      }
      ids.add(executor.submit(p));
    }
    for (long id : ids) {
      assertEquals(
          ProcedureState.SUCCESS, executor.await(id, WAIT).state(), "seed " + seed + ", " + id);
    }
    await().atMost(WAIT).until(() -> executor.locks().isEmpty());
  }
}
