package dev.baton.procedure;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * A three-state test procedure: A, B, C. Records "exec name:S" and "rollback name:S" in the
 * journal; fails a state when the env says so; optionally spawns children in B.
 */
public class Steps extends StateMachineProcedure<TestEnv, Steps.S> {
  enum S {
    A,
    B,
    C
  }

  String name = "";
  int childCount;
  String childFailAt = "";
  boolean unsupportedB;

  public Steps() {}

  Steps(String name) {
    this.name = name;
  }

  Steps withChildren(int n) {
    this.childCount = n;
    return this;
  }

  @Override
  protected Flow executeFromState(TestEnv env, S state) throws InterruptedException {
    env.passGate(name + ":" + state);
    env.record("exec " + name + ":" + state);
    if (env.shouldFail(name + ":" + state)) {
      throw new IllegalStateException("injected failure at " + name + ":" + state);
    }
    switch (state) {
      case A -> setNextState(S.B);
      case B -> {
        for (int i = 0; i < childCount; i++) {
          addChildProcedure(new Steps(name + "." + i));
        }
        setNextState(S.C);
      }
      case C -> {
        setResult(("done " + name).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return Flow.NO_MORE_STATE;
      }
    }
    return Flow.HAS_MORE_STATE;
  }

  @Override
  protected void rollbackState(TestEnv env, S state) {
    env.record("rollback " + name + ":" + state);
  }

  @Override
  protected boolean isRollbackSupported(S state) {
    return !(unsupportedB && state == S.B);
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
    out.writeInt(childCount);
    out.writeBoolean(unsupportedB);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    name = in.readUTF();
    childCount = in.readInt();
    unsupportedB = in.readBoolean();
  }

  static ProcedureRegistry registry() {
    return new ProcedureRegistry().register("Steps", Steps.class, Steps::new);
  }
}
