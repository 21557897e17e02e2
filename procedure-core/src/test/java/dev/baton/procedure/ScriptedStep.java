package dev.baton.procedure;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A three-state test procedure (A, B, C) scripted through its {@link TestEnv}, keyed by step
 * "name:STATE": children to spawn ({@code spawns}), a gate to block on, an injected failure ({@code
 * failNext(step)}), a suspension ({@code failNext("suspend " + step)}), a yield ({@code
 * failNext("yield " + step)}), a WAITING_TIMEOUT wait after the step ({@code waits}), and a failing
 * rollback ({@code failNext("rollback " + step)}). Journals "exec step" when a step starts and
 * "rollback step" when its rollback starts.
 */
public class ScriptedStep extends StateMachineProcedure<TestEnv, ScriptedStep.S> {
  enum S {
    A,
    B,
    C
  }

  String name = "";

  public ScriptedStep() {}

  ScriptedStep(String name) {
    this.name = name;
  }

  /** The child named {@code childName}; subclasses return their own kind. */
  ScriptedStep newChild(String childName) {
    return new ScriptedStep(childName);
  }

  @Override
  protected Flow executeFromState(TestEnv env, S state)
      throws ProcedureSuspendedException, ProcedureYieldException, InterruptedException {
    String step = name + ":" + state;
    env.ids.put(name, getProcId());
    env.record("exec " + step);
    env.passGate(step);
    if (env.shouldFail(step)) {
      throw new IllegalStateException("injected failure at " + step);
    }
    if (env.shouldFail("suspend " + step)) {
      throw new ProcedureSuspendedException("scripted suspension at " + step);
    }
    if (env.shouldFail("yield " + step)) {
      throw new ProcedureYieldException("scripted yield at " + step);
    }
    for (String child : env.spawns.getOrDefault(step, List.of())) {
      addChildProcedure(newChild(child));
    }
    Long wait = env.waits.get(step);
    if (wait != null) {
      waitTimeout(wait);
    }
    switch (state) {
      case A -> setNextState(S.B);
      case B -> setNextState(S.C);
      case C -> {
        setResult(("done " + name).getBytes(StandardCharsets.UTF_8));
        return Flow.NO_MORE_STATE;
      }
    }
    return Flow.HAS_MORE_STATE;
  }

  @Override
  protected void rollbackState(TestEnv env, S state) throws IOException, InterruptedException {
    String step = name + ":" + state;
    env.record("rollback " + step);
    env.passGate("rollback " + step);
    if (env.shouldFail("rollback " + step)) {
      throw new IOException("injected rollback failure at " + step);
    }
  }

  @Override
  protected boolean setTimeoutFailure(TestEnv env) {
    return !env.timeoutIsNotFailure.getOrDefault(name, false);
  }

  @Override
  protected S getState(int stateId) {
    return S.values()[stateId];
  }

  @Override
  protected int getStateId(S state) {
    return state.ordinal();
  }

  @Override
  protected S getInitialState() {
    return S.A;
  }

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeUTF(name);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    name = in.readUTF();
  }

  static ProcedureRegistry registry() {
    return new ProcedureRegistry().register("ScriptedStep", ScriptedStep.class, ScriptedStep::new);
  }
}
