package dev.baton.procedure;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.scheduler.LockCycle;
import dev.baton.procedure.store.InMemoryProcedureStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A deadlock made from two procedures through the executor: a parent holds a DataNode lock shared
 * across its steps and its child asks for it exclusively (the child waits for the parent, which
 * waits for the child). By default the executor breaks it by failing the child, whose tree rolls
 * back with a failure naming the cycle; with breaking off the cycle stays, listed and explained.
 */
@Timeout(60)
class DeadlockExecutorTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final LockEnv env = new LockEnv();
  private final List<LockCycle> told = new CopyOnWriteArrayList<>();
  private ProcedureExecutor<LockEnv> executor;

  private void start(boolean breakDeadlocks) throws Exception {
    ProcedureExecutor.Builder<LockEnv> b =
        ProcedureExecutor.builder(env, new InMemoryProcedureStore(), LockStep.registry())
            .lockManager(env.locks)
            .onDeadlock(told::add);
    if (!breakDeadlocks) {
      b.breakDeadlocks(false);
    }
    executor = b.build();
    executor.start();
  }

  @AfterEach
  void stop() {
    if (executor != null) {
      executor.stop();
    }
  }

  private long submitParentAndChildOnOneNode() {
    return executor.submit(
        new LockStep("parent")
            .shared("node:n1")
            .hold()
            .childrenAt(0, List.of(new LockStep("child").exclusive("node:n1"))));
  }

  private long childOf(long parent) {
    return await()
        .atMost(WAIT)
        .until(
            () ->
                executor.list().stream()
                    .filter(i -> i.parentProcId() == parent)
                    .mapToLong(ProcedureInfo::procId)
                    .findFirst()
                    .orElse(0),
            id -> id != 0);
  }

  @Test
  void theExecutorBreaksTheCycleByFailingTheChildAndTheTreeRollsBack() throws Exception {
    start(true);
    long parent = submitParentAndChildOnOneNode();

    ProcedureInfo done = executor.await(parent, WAIT);
    assertEquals(ProcedureState.ROLLEDBACK, done.state());
    assertTrue(done.failure().contains("deadlock of 2 procedures"), done.failure());
    assertTrue(done.failure().contains("waits for its descendant procedure"), done.failure());
    assertEquals(1, executor.deadlockCount());
    assertEquals(1, told.size());
    LockCycle cycle = told.get(0);
    assertTrue(cycle.broken());
    assertEquals(parent + 1, cycle.victim(), "the child, the youngest");
    assertEquals(List.of(cycle.victim(), parent), cycle.procIds());
    assertEquals(List.of(cycle), executor.recentDeadlocks());
    assertEquals(List.of(), executor.lockCycles());
    assertEquals(List.of("exec parent:0", "rollback parent"), env.journal());
  }

  @Test
  void withBreakingOffTheCycleStaysListedAndTheChainEndsInIt() throws Exception {
    start(false);
    long parent = submitParentAndChildOnOneNode();
    long child = childOf(parent);
    await().atMost(WAIT).until(() -> executor.lockCycles().size() == 1);

    assertEquals(List.of(child, parent), executor.lockCycles().get(0).procIds());
    assertEquals(1, executor.deadlockCount());
    assertFalse(told.get(0).broken());
    BlockedOn.Lock lock = assertInstanceOf(BlockedOn.Lock.class, executor.blockedOn(child).get());
    assertEquals(List.of(parent), lock.waitsFor());

    WaitChain fromChild = executor.why(child).orElseThrow();
    assertTrue(fromChild.cycle());
    assertEquals(
        List.of(child, parent), fromChild.links().stream().map(WaitChain.Link::procId).toList());
    assertEquals(
        "cycle: procedure "
            + child
            + " waits for procedure "
            + parent
            + " waits for procedure "
            + child,
        fromChild.rootCause());
    WaitChain fromParent = executor.why(parent).orElseThrow();
    assertTrue(fromParent.cycle());
    assertInstanceOf(BlockedOn.Children.class, fromParent.links().get(0).blockedOn());
    assertEquals(ProcedureState.WAITING, executor.getInfo(parent).orElseThrow().state());
  }
}
