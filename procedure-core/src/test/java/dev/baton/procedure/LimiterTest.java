package dev.baton.procedure;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.scheduler.LimitInfo;
import dev.baton.procedure.store.InMemoryProcedureStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The per-type limit: a cap on steps of one type that execute at once, also across restarts. */
@Timeout(60)
class LimiterTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int CAP = 2;
  private final LockEnv env = new LockEnv();
  private final InMemoryProcedureStore store = new InMemoryProcedureStore();
  private ProcedureExecutor<LockEnv> executor;

  private void start(int workers) throws Exception {
    executor =
        ProcedureExecutor.builder(env, store, LockStep.registry())
            .coreWorkers(workers)
            .limit("Limited", CAP)
            .build();
    executor.start();
  }

  @AfterEach
  void stop() {
    if (executor != null) {
      executor.stop();
    }
  }

  private LimitInfo limit() {
    return executor.limits().get(0);
  }

  @Test
  void proceduresOverTheLimitWaitWithoutAWorkerAlsoAfterARestart() throws Exception {
    start(4);
    List<Long> limited = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      LockStep.Limited p = new LockStep.Limited("l" + i);
      limited.add(executor.submit(i < CAP ? p.gate("g") : p));
      if (i == CAP - 1) {
        await().atMost(WAIT).until(() -> limit().running().size() == CAP);
      }
    }
    await()
        .atMost(WAIT)
        .until(() -> limit().running().size() == CAP && limit().waiting().size() == 3);
    assertEquals(limited.subList(0, CAP), limit().running());
    assertEquals(Set.copyOf(limited.subList(CAP, 5)), Set.copyOf(limit().waiting()));
    // two workers run the gated steps; the waiting ones hold none, so others still run
    List<Long> free = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      free.add(executor.submit(new LockStep("u" + i).steps(2)));
    }
    for (long id : free) {
      assertEquals(ProcedureState.SUCCESS, executor.await(id, WAIT).state());
    }
    assertEquals(-1, env.indexOf("exec l2:0"));
    assertTrue(
        executor
            .waitReason(limited.get(2))
            .orElseThrow()
            .contains("limit of type Limited is full"));

    executor.stop(); // the gated steps are interrupted; nothing about the limit is stored
    start(4);
    // the gated steps run again and take both slots (the others may slip in before them and end)
    await().atMost(WAIT).until(() -> limit().running().equals(limited.subList(0, CAP)));
    assertEquals(CAP, env.maxRunning("Limited"));
    env.open("g");
    for (long id : limited) {
      assertEquals(ProcedureState.SUCCESS, executor.await(id, WAIT).state());
    }
    assertEquals(CAP, env.maxRunning("Limited"));
    // a slot is given back just after its last step is persisted, which await() may beat
    await().atMost(WAIT).until(() -> limit().inUse() == 0);
  }

  @Test
  void capIsNeverExceededUnderLoadAndRandomRestarts() throws Exception {
    long seed = Long.getLong("baton.seed", System.nanoTime());
    Random random = new Random(seed);
    start(4);
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      LockStep p = i % 3 == 0 ? new LockStep("u" + i) : new LockStep.Limited("l" + i);
      p.steps(1 + random.nextInt(4));
      if (random.nextBoolean()) {
        p.yielding();
      }
      if (random.nextInt(4) == 0) {
        p.exclusive("region:db/r" + random.nextInt(3)).hold();
      }
      ids.add(executor.submit(p));
    }
    for (int restart = 0; restart < 3; restart++) {
      long target = env.steps.get() + 10 + random.nextInt(30);
      await().atMost(WAIT).until(() -> env.steps.get() >= target || allFinished(ids));
      executor.stop();
      start(1 + random.nextInt(4));
    }
    for (long id : ids) {
      assertEquals(ProcedureState.SUCCESS, executor.await(id, WAIT).state(), "seed " + seed);
    }
    assertTrue(env.maxRunning("Limited") <= CAP, "seed " + seed + ": " + env.maxRunningByType);
    await().atMost(WAIT).until(() -> limit().inUse() == 0);
  }

  private boolean allFinished(List<Long> ids) {
    return ids.stream()
        .allMatch(id -> executor.getInfo(id).map(ProcedureInfo::finished).orElse(false));
  }

  @Test
  void limitsAreValidatedWhenConfigured() {
    var builder = ProcedureExecutor.builder(env, store, LockStep.registry());
    assertThrows(IllegalArgumentException.class, () -> builder.limit("Limited", 0));
    assertThrows(IllegalArgumentException.class, () -> builder.limit("NoSuchType", 3));
    assertThrows(IllegalArgumentException.class, () -> builder.limit("", 3));
  }
}
