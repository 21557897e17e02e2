package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Nonces make submission idempotent; procIds are never reused, also after restarts. */
@Timeout(60)
class NonceTest {
  private final Harness h =
      new Harness(ScriptedStep.registry())
          .with(
              b ->
                  b.completedRetention(Duration.ofHours(1)).cleanerInterval(Duration.ofMillis(20)));

  @AfterEach
  void tearDown() {
    h.close();
  }

  @Test
  void sameNonceGivesTheSameProcIdAndRunsOnce() throws Exception {
    h.start();
    NonceKey nonce = new NonceKey(7, 42);
    long first = h.executor.submit(new ScriptedStep("p"), nonce);
    long again = h.executor.submit(new ScriptedStep("p-retry"), nonce);
    assertEquals(first, again);
    assertEquals(ProcedureState.SUCCESS, h.await(first).state());
    long afterFinish = h.executor.submit(new ScriptedStep("p-late"), nonce);
    assertEquals(first, afterFinish, "a retained procedure still answers its nonce");
    assertEquals(List.of("exec p:A", "exec p:B", "exec p:C"), h.env.journal());
  }

  @Test
  void differentNoncesGiveDifferentProcIds() throws Exception {
    h.start();
    Set<Long> ids = new HashSet<>();
    ids.add(h.executor.submit(new ScriptedStep("a"), new NonceKey(1, 1)));
    ids.add(h.executor.submit(new ScriptedStep("b"), new NonceKey(1, 2)));
    ids.add(h.executor.submit(new ScriptedStep("c"), new NonceKey(2, 1)));
    ids.add(h.executor.submit(new ScriptedStep("d")));
    assertEquals(4, ids.size(), ids::toString);
  }

  @Test
  void sameNonceGivesTheSameProcIdAfterARestartWhileLive() throws Exception {
    h.env.failNext("suspend p:B", 1);
    h.start();
    NonceKey nonce = new NonceKey(3, 99);
    long first = h.executor.submit(new ScriptedStep("p"), nonce);
    Harness.eventually("p suspended")
        .until(() -> h.executor.getInfo(first).orElseThrow().state() == ProcedureState.WAITING);

    h.start(); // restart on the same store
    assertEquals(first, h.executor.submit(new ScriptedStep("p-retry"), nonce));
    assertEquals(1, h.executor.liveCount(), "the retry created nothing");
    assertTrue(h.executor.wake(first));
    assertEquals(ProcedureState.SUCCESS, h.await(first).state());
    assertTrue(h.env.journal("exec p-retry").isEmpty());
  }

  @Test
  void sameNonceGivesTheSameProcIdAfterARestartOnceFinished() throws Exception {
    h.start();
    NonceKey nonce = new NonceKey(3, 100);
    long first = h.executor.submit(new ScriptedStep("p"), nonce);
    assertEquals(ProcedureState.SUCCESS, h.await(first).state());

    h.start();
    assertEquals(first, h.executor.submit(new ScriptedStep("p-retry"), nonce));
    assertEquals(ProcedureState.SUCCESS, h.executor.getInfo(first).orElseThrow().state());
    assertTrue(h.env.journal("exec p-retry").isEmpty());
  }

  @Test
  void procIdsAreNeverReusedAfterRestartsEvenOnceEveryRecordIsGone() throws Exception {
    h.env.spawns.put("a:B", List.of("a.0", "a.1"));
    h.start();
    List<Long> used = new ArrayList<>();
    long a = h.executor.submit(new ScriptedStep("a"));
    long b = h.executor.submit(new ScriptedStep("b"), new NonceKey(5, 5));
    h.await(a);
    h.await(b);
    used.add(a);
    used.add(b);
    used.add(h.env.ids.get("a.0"));
    used.add(h.env.ids.get("a.1"));

    // let the cleaner delete everything, so the store holds no record with a high id
    Harness.eventually("trees completed").until(() -> h.executor.liveCount() == 0);
    h.advanceClock(Duration.ofHours(2));
    Harness.eventually("store emptied").until(() -> h.memory.size() == 0);

    h.start();
    long retried = h.executor.submit(new ScriptedStep("b-again"), new NonceKey(5, 5));
    assertNotEquals(b, retried, "b's nonce expired with b, so this is a new procedure");
    assertTrue(retried > Collections.max(used), "id " + retried + " reuses or undercuts " + used);
    used.add(retried);
    h.await(retried);
    for (int restart = 0; restart < 2; restart++) {
      h.start();
      long fresh = h.executor.submit(new ScriptedStep("n" + restart));
      assertTrue(fresh > Collections.max(used), "id " + fresh + " reuses or undercuts " + used);
      used.add(fresh);
      h.await(fresh);
    }
  }
}
