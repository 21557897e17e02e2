package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.store.FileProcedureStore;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The members (children) of a finished root stay queryable with their final state for as long as
 * the root is retained, also after a restart (the retainer is rebuilt from the store), are never
 * live again, and are deleted from the store together with their root. In the in-memory store and
 * in the file store.
 */
@Timeout(60)
class RetainedMembersTest {
  static final Duration RETENTION = Duration.ofHours(1);
  static final Duration NEVER = Duration.ofDays(1);

  @TempDir Path dir;

  private final Harness h =
      new Harness(ScriptedStep.registry())
          .with(b -> b.completedRetention(RETENTION).cleanerInterval(Duration.ofMillis(20)));

  private ProcedureStore store;

  @AfterEach
  void tearDown() {
    h.close();
  }

  private void useStore(boolean file) {
    if (file) {
      h.wrapStore(s -> new FileProcedureStore(dir, FileProcedureStore.Config.defaults()));
      store = null; // read through a fresh instance: the executor's holds the directory lock
    } else {
      store = h.memory;
    }
  }

  private List<Long> storedIds() throws IOException {
    List<Long> ids = new ArrayList<>();
    if (store != null) {
      for (StoreRecord r : store.load().records()) {
        ids.add(r.procId());
      }
      return ids;
    }
    h.executor.stop(); // releases the directory
    FileProcedureStore reader = new FileProcedureStore(dir, FileProcedureStore.Config.defaults());
    reader.start();
    try {
      for (StoreRecord r : reader.load().records()) {
        ids.add(r.procId());
      }
    } finally {
      reader.stop();
    }
    h.start();
    return ids;
  }

  private void assertFinal(long procId, long parent, ProcedureState state) {
    ProcedureInfo i = h.executor.getInfo(procId).orElseThrow(() -> new AssertionError(procId));
    assertEquals(state, i.state(), i::toString);
    assertEquals(parent, i.parentProcId(), i::toString);
    assertTrue(i.finished(), i::toString);
  }

  /**
   * Starts the executor and runs two trees to their end: "ok" (children ok.0, ok.1) succeeds, "bad"
   * (child bad.0 fails) rolls back; returns their root ids.
   */
  private long[] runTwoTrees() throws Exception {
    h.env.spawns.put("ok:B", List.of("ok.0", "ok.1"));
    h.env.spawns.put("bad:B", List.of("bad.0"));
    h.env.failNext("bad.0:A", 1);
    h.start();
    long ok = h.executor.submit(new ScriptedStep("ok"));
    long bad = h.executor.submit(new ScriptedStep("bad"));
    assertEquals(ProcedureState.SUCCESS, h.await(ok).state());
    assertEquals(ProcedureState.ROLLEDBACK, h.await(bad).state());
    Harness.eventually("both trees retired").until(() -> h.executor.liveCount() == 0);
    return new long[] {ok, bad};
  }

  @ParameterizedTest(name = "file store: {0}")
  @ValueSource(booleans = {false, true})
  void membersOfAFinishedRootStayQueryableAcrossARestartUntilTheRootIsCleaned(boolean file)
      throws Exception {
    useStore(file);
    long[] roots = runTwoTrees();
    long ok = roots[0];
    long bad = roots[1];
    long ok0 = h.env.ids.get("ok.0");
    long ok1 = h.env.ids.get("ok.1");
    long bad0 = h.env.ids.get("bad.0");

    for (int run = 0; run < 2; run++) { // as finished, then as rebuilt by a restart
      assertFinal(ok0, ok, ProcedureState.SUCCESS);
      assertFinal(ok1, ok, ProcedureState.SUCCESS);
      assertFinal(bad0, bad, ProcedureState.ROLLEDBACK);
      assertEquals(0, h.executor.liveCount(), "retained members are not live");
      assertEquals(5, h.executor.list().size(), h.executor.list()::toString);
      assertEquals(List.of(ok, bad, ok0, ok1, bad0).stream().sorted().toList(), storedIds());
      h.start();
    }

    h.advanceClock(RETENTION.plusMinutes(1));
    Harness.eventually("both trees cleaned").until(() -> h.executor.list().isEmpty());
    assertTrue(h.executor.getInfo(ok1).isEmpty());
    assertEquals(List.of(), storedIds());
  }

  @ParameterizedTest(name = "file store: {0}")
  @ValueSource(booleans = {false, true})
  void zeroRetentionDeletesTheWholeTreeWithTheRootsFinalWrite(boolean file) throws Exception {
    useStore(file);
    h.with(b -> b.completedRetention(Duration.ZERO).cleanerInterval(NEVER));
    long[] roots = runTwoTrees();
    long ok = roots[0];
    long bad = roots[1];

    assertFinal(h.env.ids.get("ok.1"), ok, ProcedureState.SUCCESS); // in memory until cleaned
    assertEquals(List.of(), storedIds(), "no finished record stays in the store");
    h.start(); // a restart
    assertTrue(h.executor.list().isEmpty(), "a restart finds nothing to retain");
  }
}
