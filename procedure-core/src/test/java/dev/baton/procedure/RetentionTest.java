package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Finished roots stay queryable for the completed retention, then the cleaner removes them from
 * getInfo and from the store. Time is the executor's clock, moved forward by the test.
 */
@Timeout(60)
class RetentionTest {
  private final Harness h =
      new Harness(ScriptedStep.registry())
          .with(
              b ->
                  b.completedRetention(Duration.ofHours(1)).cleanerInterval(Duration.ofMillis(20)));

  @AfterEach
  void tearDown() {
    h.close();
  }

  private List<Long> storedIds() throws IOException {
    List<Long> ids = new ArrayList<>();
    for (StoreRecord r : h.memory.load().records()) {
      ids.add(r.procId());
    }
    return ids;
  }

  private void finish(long id) throws Exception {
    h.await(id);
    Harness.eventually("tree of " + id + " completed")
        .until(() -> h.executor.list().stream().noneMatch(i -> !i.finished()));
  }

  @Test
  void finishedRootsAreQueryableForTheRetentionThenRemovedEverywhere() throws Exception {
    h.env.spawns.put("early:B", List.of("early.0"));
    h.env.failNext("late:C", 1);
    h.start();
    long early = h.executor.submit(new ScriptedStep("early"));
    finish(early);
    long child = h.env.ids.get("early.0");

    h.advanceClock(Duration.ofMinutes(40));
    long late = h.executor.submit(new ScriptedStep("late"));
    finish(late);

    // both retained: infos (the child's too) and the records (the child's kept with its root)
    assertEquals(ProcedureState.SUCCESS, h.executor.getInfo(early).orElseThrow().state());
    assertEquals(early, h.executor.getInfo(child).orElseThrow().parentProcId());
    assertEquals(ProcedureState.ROLLEDBACK, h.executor.getInfo(late).orElseThrow().state());
    assertEquals(List.of(early, child, late), storedIds());
    assertEquals(3, h.executor.list().size());

    // 70 minutes after "early" finished, 30 after "late": only "early" expired
    h.advanceClock(Duration.ofMinutes(30));
    Harness.eventually("early cleaned").until(() -> h.executor.getInfo(early).isEmpty());
    assertTrue(h.executor.getInfo(child).isEmpty(), "the child goes with its root");
    assertEquals(List.of(late), storedIds());
    assertEquals(ProcedureState.ROLLEDBACK, h.executor.getInfo(late).orElseThrow().state());
    assertTrue(h.executor.getInfo(late).orElseThrow().failure().contains("injected"));

    h.advanceClock(Duration.ofMinutes(31));
    Harness.eventually("late cleaned").until(() -> h.executor.getInfo(late).isEmpty());
    assertEquals(List.of(), storedIds());
    assertEquals(0, h.memory.size());
    assertEquals(List.of(), h.executor.list());
  }

  @Test
  void retentionIsKeptAcrossARestartAndCountsFromTheFinish() throws Exception {
    h.start();
    long id = h.executor.submit(new ScriptedStep("p"));
    finish(id);
    h.executor.stop();

    h.advanceClock(Duration.ofMinutes(50));
    h.start();
    ProcedureInfo info = h.executor.getInfo(id).orElseThrow();
    assertEquals(ProcedureState.SUCCESS, info.state());
    assertEquals("done p", new String(info.result(), java.nio.charset.StandardCharsets.UTF_8));
    assertEquals(List.of(id), storedIds());

    h.advanceClock(Duration.ofMinutes(11)); // 61 minutes after the finish, 11 after the restart
    Harness.eventually("p cleaned").until(() -> h.executor.getInfo(id).isEmpty());
    assertEquals(0, h.memory.size());
  }

  @Test
  void zeroRetentionDeletesAFinishedRootAtOnceAndForgetsItAfterTheGrace() throws Exception {
    h.with(b -> b.completedRetention(Duration.ZERO).cleanerInterval(Duration.ofMillis(20)));
    h.start();
    long id = h.executor.submit(new ScriptedStep("p"));
    // await may find it already gone: wait on the journal instead
    Harness.eventually("p ran").until(() -> h.env.journal().contains("exec p:C"));
    Harness.eventually("p deleted by its final write").until(() -> h.memory.size() == 0);
    Harness.eventually("p finished").until(() -> h.executor.liveCount() == 0);
    // (kept for the grace: CompletedProcedureCleanupTest checks it on a clock that stands still)
    h.advanceClock(ExecutorConfig.ZERO_RETENTION_GRACE);
    Harness.eventually("p forgotten").until(() -> h.executor.getInfo(id).isEmpty());
  }

  @Test
  void aRetentionShorterThanTheCleanerIntervalIsHonoured() throws Exception {
    Duration retention = Duration.ofMillis(500);
    try (Harness brief =
        new Harness(ScriptedStep.registry())
            .with(b -> b.completedRetention(retention).cleanerInterval(Duration.ofSeconds(30)))) {
      brief.start();
      long id = brief.executor.submit(new ScriptedStep("brief"));
      brief.await(id);
      assertTrue(brief.executor.getInfo(id).isPresent(), "kept for its retention");
      // removed within the retention plus max(retention, 1 s), long before the 30 s interval
      brief.advanceClock(retention.plus(ExecutorConfig.MIN_CLEANER_PERIOD));
      Harness.eventually("brief cleaned").until(() -> brief.executor.getInfo(id).isEmpty());
    }
  }
}
