package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What getInfo and list report: state, tree ids, type, step, times, result and failure. */
@Timeout(60)
class ProcedureInfoTest {
  private final Harness h =
      new Harness(ScriptedStep.registry()).with(b -> b.completedRetention(Duration.ofHours(1)));

  @AfterEach
  void tearDown() {
    h.close();
  }

  private static String text(byte[] bytes) {
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  @Test
  void infoOfARunningTreeAndOfItsFinishedChild() throws Exception {
    h.env.spawns.put("r:B", List.of("r.0"));
    CountDownLatch inC = new CountDownLatch(1);
    h.env.onRecord.put("exec r:C", inC::countDown);
    CountDownLatch release = h.env.gate("r:C");
    h.start();
    long before = h.now();
    long root = h.executor.submit(new ScriptedStep("r"));
    long after = h.now();
    assertTrue(inC.await(20, TimeUnit.SECONDS));
    long child = h.env.ids.get("r.0");

    ProcedureInfo r = h.executor.getInfo(root).orElseThrow();
    assertEquals(root, r.procId());
    assertEquals(Procedure.NO_PARENT, r.parentProcId());
    assertEquals(root, r.rootProcId());
    assertEquals("ScriptedStep", r.type());
    assertEquals(ProcedureState.RUNNABLE, r.state());
    assertEquals("C", r.stepName(), "C is running: its outcome is not stored yet");
    assertTrue(r.submittedTime() >= before && r.submittedTime() <= after, r::toString);
    assertTrue(r.lastUpdate() >= r.submittedTime(), r::toString);
    assertNull(r.result());
    assertNull(r.failure());
    assertFalse(r.finished());

    ProcedureInfo c = h.executor.getInfo(child).orElseThrow();
    assertEquals(root, c.parentProcId());
    assertEquals(root, c.rootProcId());
    assertEquals(ProcedureState.SUCCESS, c.state());
    assertEquals("done r.0", text(c.result()));
    assertTrue(c.finished());
    assertTrue(c.submittedTime() >= r.submittedTime());

    List<ProcedureInfo> all = h.executor.list();
    assertEquals(List.of(root, child), all.stream().map(ProcedureInfo::procId).toList());

    release.countDown();
    ProcedureInfo done = h.await(root);
    assertEquals(ProcedureState.SUCCESS, done.state());
    assertEquals("done r", text(done.result()));
    assertTrue(done.finished());
    assertTrue(done.lastUpdate() >= r.lastUpdate());
    assertEquals(
        List.of(root, child), h.executor.list().stream().map(ProcedureInfo::procId).toList());
  }

  @Test
  void infoOfAParentWaitingForItsChild() throws Exception {
    h.env.spawns.put("r:B", List.of("r.0"));
    CountDownLatch childRunning = new CountDownLatch(1);
    h.env.onRecord.put("exec r.0:A", childRunning::countDown);
    CountDownLatch release = h.env.gate("r.0:A");
    h.start();
    long root = h.executor.submit(new ScriptedStep("r"));
    assertTrue(childRunning.await(20, TimeUnit.SECONDS));
    ProcedureInfo r = h.executor.getInfo(root).orElseThrow();
    assertEquals(ProcedureState.WAITING, r.state());
    assertEquals("C", r.stepName(), "the step it runs once the child is done");
    ProcedureInfo c = h.executor.getInfo(h.env.ids.get("r.0")).orElseThrow();
    assertEquals(ProcedureState.RUNNABLE, c.state());
    assertEquals("A", c.stepName());
    release.countDown();
    assertEquals(ProcedureState.SUCCESS, h.await(root).state());
  }

  @Test
  void failureMessagesNameTheCauseAndTheFailedChild() throws Exception {
    h.env.spawns.put("r:B", List.of("r.0"));
    h.env.failNext("r.0:B", 1);
    h.start();
    long root = h.executor.submit(new ScriptedStep("r"));
    ProcedureInfo r = h.await(root);
    long child = h.env.ids.get("r.0");
    assertEquals(ProcedureState.ROLLEDBACK, r.state());
    assertTrue(r.failure().contains("child procedure " + child), r.failure());
    assertTrue(r.failure().contains("injected failure at r.0:B"), r.failure());
    ProcedureInfo c = h.executor.getInfo(child).orElseThrow();
    assertEquals(ProcedureState.ROLLEDBACK, c.state());
    assertTrue(c.failure().contains("injected failure at r.0:B"), c.failure());
    assertNull(c.result());
  }

  @Test
  void unknownProceduresAreReportedAsSuch() throws Exception {
    h.start();
    assertTrue(h.executor.getInfo(12345).isEmpty());
    assertEquals(List.of(), h.executor.list());
    assertThrows(
        IllegalArgumentException.class, () -> h.executor.await(12345, Duration.ofSeconds(1)));
  }

  @Test
  void resultBytesHandedToAClientCannotChangeTheProcedure() throws Exception {
    h.start();
    long id = h.executor.submit(new ScriptedStep("p"));
    byte[] result = h.await(id).result();
    byte[] expected = result.clone();
    result[0] = 'X';
    h.executor.getInfo(id).orElseThrow().result()[1] = 'Y';
    assertArrayEquals(expected, h.executor.getInfo(id).orElseThrow().result());
    assertArrayEquals(expected, h.executor.list().get(0).result());
  }
}
