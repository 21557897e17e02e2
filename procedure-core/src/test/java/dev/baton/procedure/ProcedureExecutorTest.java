package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.store.InMemoryProcedureStore;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ProcedureExecutorTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private final TestEnv env = new TestEnv();
  private final InMemoryProcedureStore store = new InMemoryProcedureStore();
  private ProcedureExecutor<TestEnv> executor;

  private ProcedureExecutor<TestEnv> start() throws Exception {
    executor = ProcedureExecutor.builder(env, store, Steps.registry()).coreWorkers(2).build();
    executor.start();
    return executor;
  }

  @AfterEach
  void stop() {
    if (executor != null) {
      executor.stop();
    }
  }

  @Test
  void runsEveryStateInOrderAndSucceeds() throws Exception {
    start();
    long id = executor.submit(new Steps("p"));
    ProcedureInfo info = executor.await(id, WAIT);
    assertEquals(ProcedureState.SUCCESS, info.state());
    assertEquals("done p", new String(info.result(), java.nio.charset.StandardCharsets.UTF_8));
    assertEquals(List.of("exec p:A", "exec p:B", "exec p:C"), env.journal());
  }

  /**
   * A listing taken while trees finish names each procedure once: a finishing tree joins the
   * completed ones before it leaves the live ones, and a listing between the two must not show it
   * twice.
   */
  @Test
  void aListingWhileProceduresFinishNamesEachProcedureOnce() throws Exception {
    start();
    int procedures = 2_000;
    List<Long> ids = new java.util.ArrayList<>();
    for (int i = 0; i < procedures; i++) {
      ids.add(executor.submit(new Steps("p" + i)));
    }
    int listings = 0;
    boolean allFinished = false;
    while (!allFinished) {
      List<ProcedureInfo> all = executor.list();
      listings++;
      java.util.Set<Long> seen = new java.util.HashSet<>();
      for (ProcedureInfo p : all) {
        assertTrue(seen.add(p.procId()), "listing " + listings + " names " + p.procId() + " twice");
      }
      allFinished = all.size() == procedures && all.stream().allMatch(ProcedureInfo::finished);
    }
    assertEquals(procedures, executor.list().size());
    assertTrue(listings > 1, "the listings overlapped the run");
  }

  @Test
  void failingStateRollsBackExecutedStatesNewestFirst() throws Exception {
    start();
    env.failNext("p:C", 1);
    long id = executor.submit(new Steps("p"));
    ProcedureInfo info = executor.await(id, WAIT);
    assertEquals(ProcedureState.ROLLEDBACK, info.state());
    assertTrue(info.failure().contains("injected failure at p:C"), info.failure());
    assertEquals(
        List.of("exec p:A", "exec p:B", "exec p:C", "rollback p:C", "rollback p:B", "rollback p:A"),
        env.journal());
  }

  @Test
  void childFailureRollsBackSiblingsAndParentInReverseOrder() throws Exception {
    start();
    env.failNext("p.1:C", 1);
    long id = executor.submit(new Steps("p").withChildren(2));
    ProcedureInfo info = executor.await(id, WAIT);
    assertEquals(ProcedureState.ROLLEDBACK, info.state());
    List<String> journal = env.journal();
    // p.0 may have succeeded (then not rolled back) or not; p.1's states and p's states are undone.
    assertTrue(journal.contains("rollback p.1:C"), journal.toString());
    int lastChildRollback = journal.lastIndexOf("rollback p.1:A");
    assertTrue(
        lastChildRollback >= 0 && lastChildRollback < journal.indexOf("rollback p:B"),
        journal.toString());
    assertEquals("rollback p:A", journal.get(journal.size() - 1));
    assertTrue(!journal.contains("rollback p:C"), "p:C never ran: " + journal);
  }
}
