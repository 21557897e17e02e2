package dev.baton.procedure;

import static dev.baton.procedure.ProcedureState.FAILED;
import static dev.baton.procedure.ProcedureState.INITIALIZING;
import static dev.baton.procedure.ProcedureState.ROLLEDBACK;
import static dev.baton.procedure.ProcedureState.RUNNABLE;
import static dev.baton.procedure.ProcedureState.SUCCESS;
import static dev.baton.procedure.ProcedureState.WAITING;
import static dev.baton.procedure.ProcedureState.WAITING_TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.store.ForwardingProcedureStore;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The seven-state diagram: what it allows, and that the executor keeps to it. */
@Timeout(60)
class ProcedureStateTest {

  /** The edges of the state diagram in {@link ProcedureState}'s javadoc. */
  private static final Map<ProcedureState, Set<ProcedureState>> DIAGRAM =
      Map.of(
          INITIALIZING, EnumSet.of(RUNNABLE, FAILED),
          RUNNABLE, EnumSet.of(RUNNABLE, WAITING, WAITING_TIMEOUT, SUCCESS, FAILED),
          WAITING, EnumSet.of(RUNNABLE, FAILED),
          WAITING_TIMEOUT, EnumSet.of(RUNNABLE, FAILED),
          FAILED, EnumSet.of(ROLLEDBACK),
          SUCCESS, EnumSet.noneOf(ProcedureState.class),
          ROLLEDBACK, EnumSet.noneOf(ProcedureState.class));

  record Transition(long procId, ProcedureState from, ProcedureState to) {
    String edge() {
      return from + "->" + to;
    }
  }

  /** A scripted step that records every state change the executor makes to it. */
  public static final class Recording extends ScriptedStep {
    private final Queue<Transition> log;

    Recording(Queue<Transition> log) {
      this.log = log;
    }

    Recording(String name, Queue<Transition> log) {
      super(name);
      this.log = log;
    }

    @Override
    ScriptedStep newChild(String childName) {
      return new Recording(childName, log);
    }

    @Override
    void transitionTo(ProcedureState next) {
      ProcedureState from = getState();
      super.transitionTo(next);
      if (from != next) {
        log.add(new Transition(getProcId(), from, next));
      }
    }
  }

  /** Records the state every stored procedure is written with, in write order. */
  static final class StateRecordingStore extends ForwardingProcedureStore {
    final Map<Long, List<ProcedureState>> written = new ConcurrentHashMap<>();

    StateRecordingStore(ProcedureStore delegate) {
      super(delegate);
    }

    @Override
    public synchronized void write(StoreBatch batch) throws IOException {
      delegate.write(batch);
      for (StoreRecord r : batch.upserts()) {
        ProcedureState state =
            ProcedureCodec.stateOf(ProcedureCodec.parseEnvelope(r.procId(), r.data()));
        written.computeIfAbsent(r.procId(), id -> new ArrayList<>()).add(state);
      }
    }
  }

  private final Queue<Transition> log = new ConcurrentLinkedQueue<>();
  private StateRecordingStore recorder;
  private final Harness h =
      new Harness(
              new ProcedureRegistry()
                  .register("Recording", Recording.class, () -> new Recording(log)))
          .with(b -> b.coreWorkers(2))
          .wrapStore(s -> recorder = new StateRecordingStore(s));

  @AfterEach
  void tearDown() {
    h.close();
  }

  @Test
  void canTransitionToAllowsExactlyTheEdgesOfTheDiagram() {
    for (ProcedureState from : ProcedureState.values()) {
      for (ProcedureState to : ProcedureState.values()) {
        assertEquals(
            DIAGRAM.get(from).contains(to),
            from.canTransitionTo(to),
            from + " -> " + to + " disagrees with the diagram");
      }
    }
  }

  @Test
  void terminalStatesHaveNoWayOut() {
    for (ProcedureState to : ProcedureState.values()) {
      assertTrue(!SUCCESS.canTransitionTo(to), "SUCCESS -> " + to);
      assertTrue(!ROLLEDBACK.canTransitionTo(to), "ROLLEDBACK -> " + to);
    }
    assertEquals(EnumSet.of(ROLLEDBACK), allowedFrom(FAILED));
  }

  @Test
  void aProcedureRefusesATransitionOutsideTheDiagram() {
    Recording p = new Recording("p", log);
    assertThrows(IllegalStateException.class, () -> p.transitionTo(SUCCESS));
    assertThrows(IllegalStateException.class, () -> p.transitionTo(WAITING));
    assertEquals(INITIALIZING, p.getState(), "a refused transition leaves the state unchanged");
    p.transitionTo(RUNNABLE);
    p.transitionTo(SUCCESS);
    assertThrows(IllegalStateException.class, () -> p.transitionTo(RUNNABLE));
    assertThrows(IllegalStateException.class, () -> p.transitionTo(FAILED));
    assertEquals(SUCCESS, p.getState());
  }

  @Test
  void executorMakesOnlyAllowedTransitionsAndUsesEveryEdgeOfTheDiagram() throws Exception {
    h.start();
    // success through children: RUNNABLE -> WAITING -> RUNNABLE -> SUCCESS
    h.env.spawns.put("ok:B", List.of("ok.0", "ok.1"));
    // a failing child while its parent waits: WAITING -> FAILED, RUNNABLE -> FAILED -> ROLLEDBACK
    h.env.spawns.put("bad:B", List.of("bad.0"));
    h.env.failNext("bad.0:B", 1);
    // a wait that ends and continues, and one whose expiry fails the procedure
    h.env.waits.put("pause:A", 30L);
    h.env.timeoutIsNotFailure.put("pause", true);
    h.env.waits.put("expire:A", 30L);
    // suspended (WAITING without children), woken, then aborted in a later suspension
    h.env.failNext("suspend susp:A", 1);
    h.env.failNext("suspend susp:B", 1);

    long ok = h.executor.submit(new Recording("ok", log));
    long bad = h.executor.submit(new Recording("bad", log));
    long pause = h.executor.submit(new Recording("pause", log));
    long expire = h.executor.submit(new Recording("expire", log));
    long susp = h.executor.submit(new Recording("susp", log));

    Harness.eventually("susp suspended in A")
        .until(() -> h.executor.getInfo(susp).orElseThrow().state() == WAITING);
    assertTrue(h.executor.wake(susp));
    Harness.eventually("susp suspended in B")
        .until(() -> h.env.journal("exec susp:B").size() == 1 && isWaiting(susp));
    assertTrue(h.executor.abort(susp));

    assertEquals(SUCCESS, h.await(ok).state());
    assertEquals(ROLLEDBACK, h.await(bad).state());
    assertEquals(SUCCESS, h.await(pause).state());
    assertEquals(ROLLEDBACK, h.await(expire).state());
    assertEquals(ROLLEDBACK, h.await(susp).state());
    assertTrue(h.executor.failure().isEmpty(), "executor failed: " + h.executor.failure());
    assertTrue(h.executor.isRunning());

    List<String> illegal = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (Transition t : log) {
      if (!t.from().canTransitionTo(t.to())) {
        illegal.add(t.toString());
      }
      seen.add(t.edge());
    }
    assertTrue(illegal.isEmpty(), "transitions outside the diagram: " + illegal);

    Set<String> expected = new LinkedHashSet<>();
    for (ProcedureState from : ProcedureState.values()) {
      for (ProcedureState to : allowedFrom(from)) {
        // RUNNABLE -> RUNNABLE is "run another step", not a change of state; nothing fails a
        // procedure before it is submitted, so INITIALIZING -> FAILED has no path.
        if (from != to && !(from == INITIALIZING && to == FAILED)) {
          expected.add(from + "->" + to);
        }
      }
    }
    Set<String> missing = new LinkedHashSet<>(expected);
    missing.removeAll(seen);
    assertTrue(missing.isEmpty(), "edges never taken: " + missing + "; seen " + seen);

    // what the store saw: every stored change follows the diagram (possibly over states that
    // were never stored), and nothing is stored for a procedure after a terminal state
    assertTrue(recorder.written.keySet().containsAll(List.of(ok, bad, pause, expire, susp)));
    for (Map.Entry<Long, List<ProcedureState>> e : recorder.written.entrySet()) {
      List<ProcedureState> states = e.getValue();
      for (int i = 1; i < states.size(); i++) {
        ProcedureState from = states.get(i - 1);
        ProcedureState to = states.get(i);
        assertTrue(
            from != SUCCESS && from != ROLLEDBACK,
            "procedure " + e.getKey() + " stored again after " + from + ": " + states);
        assertTrue(
            from == to || reachable(from, to),
            "procedure " + e.getKey() + " stored " + from + " then " + to + ": " + states);
      }
    }
    for (long root : List.of(ok, bad, pause, expire, susp)) {
      List<ProcedureState> states = recorder.written.get(root);
      ProcedureState last = states.get(states.size() - 1);
      assertTrue(last == SUCCESS || last == ROLLEDBACK, root + " last stored " + states);
    }
  }

  private static boolean reachable(ProcedureState from, ProcedureState to) {
    Set<ProcedureState> seen = EnumSet.of(from);
    java.util.ArrayDeque<ProcedureState> todo = new java.util.ArrayDeque<>(List.of(from));
    while (!todo.isEmpty()) {
      for (ProcedureState next : allowedFrom(todo.poll())) {
        if (next == to) {
          return true;
        }
        if (seen.add(next)) {
          todo.add(next);
        }
      }
    }
    return false;
  }

  private boolean isWaiting(long procId) {
    return h.executor.getInfo(procId).orElseThrow().state() == WAITING;
  }

  private static Set<ProcedureState> allowedFrom(ProcedureState from) {
    Set<ProcedureState> out = EnumSet.noneOf(ProcedureState.class);
    for (ProcedureState to : ProcedureState.values()) {
      if (from.canTransitionTo(to)) {
        out.add(to);
      }
    }
    return out;
  }
}
