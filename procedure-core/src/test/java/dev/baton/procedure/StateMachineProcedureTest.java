package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * StateMachineProcedure semantics: the cycle counter, NO_MORE_STATE, setNextState, yielding after
 * each step, ProcedureYieldException, and suspension ended by wake().
 */
@Timeout(60)
class StateMachineProcedureTest {

  /** States of the small procedures below. */
  enum P {
    FIRST,
    SECOND,
    THIRD
  }

  /** Base for the small procedures: a name, the P states, journaled rollbacks. */
  public abstract static class Small extends StateMachineProcedure<TestEnv, P> {
    String name = "";

    @Override
    protected void rollbackState(TestEnv env, P state) {
      env.record("rollback " + name + ":" + state);
    }

    @Override
    protected P getState(int stateId) {
      return P.values()[stateId];
    }

    @Override
    protected int getStateId(P state) {
      return state.ordinal();
    }

    @Override
    protected P getInitialState() {
      return P.FIRST;
    }

    @Override
    protected void serializeStateData(DataOutputStream out) throws IOException {
      out.writeUTF(name);
    }

    @Override
    protected void deserializeStateData(DataInputStream in) throws IOException {
      name = in.readUTF();
    }
  }

  /** Stays in FIRST until it has run there {@code rounds} times, then SECOND ends. */
  public static final class Poller extends Small {
    @Override
    protected Flow executeFromState(TestEnv env, P state) throws InterruptedException {
      env.record(name + ":" + state + " cycles=" + getCycles());
      env.passGate(name + ":" + state + " cycles=" + getCycles());
      if (state == P.FIRST) {
        if (getCycles() < 3) {
          return Flow.HAS_MORE_STATE; // no setNextState: same state again
        }
        setNextState(P.SECOND);
        return Flow.HAS_MORE_STATE;
      }
      return Flow.NO_MORE_STATE;
    }
  }

  /**
   * FIRST names SECOND as next but ends with NO_MORE_STATE ("stop") or jumps to THIRD, skipping
   * SECOND ("jump"); THIRD fails when the env says so. "fail-after-naming" names SECOND and then
   * fails in FIRST.
   */
  public static final class Jumper extends Small {
    @Override
    protected Flow executeFromState(TestEnv env, P state) {
      env.record("exec " + name + ":" + state);
      switch (state) {
        case FIRST -> {
          setNextState(P.SECOND);
          if (name.equals("stop")) {
            return Flow.NO_MORE_STATE;
          }
          if (name.equals("fail-after-naming")) {
            setFailure("test", new IllegalStateException("fails after naming SECOND"));
            return Flow.HAS_MORE_STATE;
          }
          setNextState(P.THIRD);
          return Flow.HAS_MORE_STATE;
        }
        case SECOND -> {
          return Flow.NO_MORE_STATE;
        }
        default -> {
          if (env.shouldFail(name + ":" + state)) {
            throw new IllegalStateException("injected failure at " + name + ":" + state);
          }
          return Flow.NO_MORE_STATE;
        }
      }
    }
  }

  /** Runs FIRST {@code steps} times; yields after each step if {@code yielding}. */
  public static final class Looper extends Small {
    boolean yielding;
    int done;

    @Override
    protected Flow executeFromState(TestEnv env, P state) throws InterruptedException {
      env.record(name + " " + done);
      env.passGate(name + " " + done);
      done++;
      return done < 5 ? Flow.HAS_MORE_STATE : Flow.NO_MORE_STATE;
    }

    @Override
    protected boolean isYieldAfterExecution(TestEnv env) {
      return yielding;
    }

    @Override
    protected void serializeStateData(DataOutputStream out) throws IOException {
      super.serializeStateData(out);
      out.writeBoolean(yielding);
      out.writeInt(done);
    }

    @Override
    protected void deserializeStateData(DataInputStream in) throws IOException {
      super.deserializeStateData(in);
      yielding = in.readBoolean();
      done = in.readInt();
    }
  }

  private static <T extends Small> T named(T p, String name) {
    p.name = name;
    return p;
  }

  private final Harness h =
      new Harness(
          ScriptedStep.registry()
              .register("Poller", Poller.class, Poller::new)
              .register("Jumper", Jumper.class, Jumper::new)
              .register("Looper", Looper.class, Looper::new));

  @AfterEach
  void tearDown() {
    h.close();
  }

  @Test
  void cycleCounterCountsConsecutiveStepsInAnUnchangedState() throws Exception {
    h.with(b -> b.coreWorkers(1)).start();
    long id = h.executor.submit(named(new Poller(), "p"));
    assertEquals(ProcedureState.SUCCESS, h.await(id).state());
    assertEquals(
        List.of(
            "p:FIRST cycles=0",
            "p:FIRST cycles=1",
            "p:FIRST cycles=2",
            "p:FIRST cycles=3",
            "p:SECOND cycles=0"),
        h.env.journal());
  }

  @Test
  void cycleCounterIsPersistedAcrossARestart() throws Exception {
    CountDownLatch atTwo = new CountDownLatch(1);
    h.env.onRecord.put("p:FIRST cycles=2", atTwo::countDown);
    CountDownLatch gate = h.env.gate("p:FIRST cycles=2");
    h.with(b -> b.coreWorkers(1)).start();
    long id = h.executor.submit(named(new Poller(), "p"));
    assertTrue(atTwo.await(20, java.util.concurrent.TimeUnit.SECONDS));
    h.executor.stop(); // the step with cycles=2 is interrupted, not recorded
    gate.countDown();
    h.start();
    assertEquals(ProcedureState.SUCCESS, h.await(id).state());
    assertEquals(
        List.of(
            "p:FIRST cycles=0",
            "p:FIRST cycles=1",
            "p:FIRST cycles=2",
            "p:FIRST cycles=2",
            "p:FIRST cycles=3",
            "p:SECOND cycles=0"),
        h.env.journal());
  }

  @Test
  void noMoreStateEndsTheProcedureEvenIfANextStateWasNamed() throws Exception {
    h.start();
    long id = h.executor.submit(named(new Jumper(), "stop"));
    ProcedureInfo info = h.await(id);
    assertEquals(ProcedureState.SUCCESS, info.state());
    assertEquals(List.of("exec stop:FIRST"), h.env.journal());
    assertEquals("FIRST", info.stepName(), "step name is the last state that ran");
  }

  @Test
  void noMoreStateWithChildrenSucceedsAfterTheChildrenWithoutAnotherStep() throws Exception {
    h.start();
    h.env.spawns.put("p:C", List.of("p.0"));
    long id = h.executor.submit(new ScriptedStep("p"));
    assertEquals(ProcedureState.SUCCESS, h.await(id).state());
    List<String> journal = h.env.journal();
    assertEquals(List.of("exec p:A", "exec p:B", "exec p:C"), h.env.journal("exec p:"));
    assertEquals(
        List.of("exec p.0:A", "exec p.0:B", "exec p.0:C"),
        h.env.journal("exec p.0:"),
        journal::toString);
    assertTrue(journal.indexOf("exec p.0:A") > journal.indexOf("exec p:C"), journal::toString);
    ProcedureInfo child = h.executor.getInfo(h.env.ids.get("p.0")).orElseThrow();
    assertEquals(ProcedureState.SUCCESS, child.state());
    assertEquals(id, child.parentProcId());
  }

  @Test
  void setNextStateSkipsStatesAndRollbackUndoesOnlyThoseThatRan() throws Exception {
    h.start();
    h.env.failNext("jump:THIRD", 1);
    long id = h.executor.submit(named(new Jumper(), "jump"));
    assertEquals(ProcedureState.ROLLEDBACK, h.await(id).state());
    assertEquals(
        List.of("exec jump:FIRST", "exec jump:THIRD", "rollback jump:THIRD", "rollback jump:FIRST"),
        h.env.journal());
  }

  @Test
  void aStateOnlyNamedAsNextIsNeverRolledBack() throws Exception {
    h.start();
    long id = h.executor.submit(named(new Jumper(), "fail-after-naming"));
    ProcedureInfo info = h.await(id);
    assertEquals(ProcedureState.ROLLEDBACK, info.state());
    assertTrue(info.failure().contains("fails after naming SECOND"), info.failure());
    assertEquals(
        List.of("exec fail-after-naming:FIRST", "rollback fail-after-naming:FIRST"),
        h.env.journal());
  }

  @Test
  void yieldingProceduresInterleaveOnOneWorker() throws Exception {
    assertEquals(List.of("a", "b", "a", "b", "a", "b", "a", "b", "a", "b"), runTwoLoopers(true));
  }

  @Test
  void nonYieldingProcedureRunsItsStepsBackToBack() throws Exception {
    assertEquals(List.of("a", "a", "a", "a", "a", "b", "b", "b", "b", "b"), runTwoLoopers(false));
  }

  /** Runs loopers a and b (5 steps each) on one worker; b is queued while a's first step runs. */
  private List<String> runTwoLoopers(boolean yielding) throws Exception {
    h.with(b -> b.coreWorkers(1).maxWorkers(1)).start();
    CountDownLatch aStarted = new CountDownLatch(1);
    h.env.onRecord.put("a 0", aStarted::countDown);
    CountDownLatch releaseA = h.env.gate("a 0");
    Looper a = named(new Looper(), "a");
    Looper b = named(new Looper(), "b");
    a.yielding = yielding;
    b.yielding = yielding;
    long ida = h.executor.submit(a);
    assertTrue(aStarted.await(20, java.util.concurrent.TimeUnit.SECONDS));
    long idb = h.executor.submit(b);
    releaseA.countDown();
    assertEquals(ProcedureState.SUCCESS, h.await(ida).state());
    assertEquals(ProcedureState.SUCCESS, h.await(idb).state());
    List<String> order = new ArrayList<>();
    for (String e : h.env.journal()) {
      order.add(e.substring(0, 1));
    }
    return order;
  }

  @Test
  void procedureYieldExceptionRequeuesAtTheBackAndRetriesTheSameState() throws Exception {
    h.with(b -> b.coreWorkers(1).maxWorkers(1)).start();
    h.env.failNext("yield p:B", 1);
    CountDownLatch pStarted = new CountDownLatch(1);
    h.env.onRecord.put("exec p:A", pStarted::countDown);
    CountDownLatch releaseP = h.env.gate("p:A");
    long p = h.executor.submit(new ScriptedStep("p"));
    assertTrue(pStarted.await(20, java.util.concurrent.TimeUnit.SECONDS));
    long q = h.executor.submit(new ScriptedStep("q"));
    releaseP.countDown();
    assertEquals(ProcedureState.SUCCESS, h.await(p).state());
    assertEquals(ProcedureState.SUCCESS, h.await(q).state());
    List<String> journal = h.env.journal();
    int firstB = journal.indexOf("exec p:B");
    int secondB = journal.lastIndexOf("exec p:B");
    assertTrue(firstB < secondB, "p:B runs again after the yield: " + journal);
    assertTrue(
        journal.indexOf("exec q:A") > firstB && journal.indexOf("exec q:A") < secondB,
        "q runs while p is at the back of the queue: " + journal);
    assertTrue(journal.indexOf("exec p:C") > secondB, journal::toString);
    assertTrue(h.env.journal("rollback").isEmpty(), journal::toString);
  }

  @Test
  void suspendedProcedureWaitsUntilWokenThenRerunsItsState() throws Exception {
    h.start();
    h.env.failNext("suspend p:B", 1);
    long id = h.executor.submit(new ScriptedStep("p"));
    Harness.eventually("p suspended")
        .until(() -> h.executor.getInfo(id).orElseThrow().state() == ProcedureState.WAITING);
    ProcedureInfo waiting = h.executor.getInfo(id).orElseThrow();
    assertEquals("B", waiting.stepName());
    assertFalse(waiting.finished());
    assertEquals(List.of("exec p:A", "exec p:B"), h.env.journal());

    assertTrue(h.executor.wake(id));
    assertEquals(ProcedureState.SUCCESS, h.await(id).state());
    assertEquals(List.of("exec p:A", "exec p:B", "exec p:B", "exec p:C"), h.env.journal());
    assertFalse(h.executor.wake(id), "a finished procedure cannot be woken");
    assertFalse(h.executor.wake(id + 1000), "an unknown procedure cannot be woken");
  }

  @Test
  void suspendedProcedureStaysSuspendedAcrossARestartAndCanBeWokenThere() throws Exception {
    h.start();
    h.env.failNext("suspend p:B", 1);
    long id = h.executor.submit(new ScriptedStep("p"));
    Harness.eventually("p suspended")
        .until(() -> h.executor.getInfo(id).orElseThrow().state() == ProcedureState.WAITING);
    h.start(); // restart on the same store
    assertEquals(ProcedureState.WAITING, h.executor.getInfo(id).orElseThrow().state());
    assertTrue(h.executor.wake(id));
    assertEquals(ProcedureState.SUCCESS, h.await(id).state());
    assertEquals(List.of("exec p:A", "exec p:B", "exec p:B", "exec p:C"), h.env.journal());
  }
}
