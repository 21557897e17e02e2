package dev.baton.consensus;

import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.StateMachineProcedure;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;

/**
 * A three-state test procedure (PREPARE, APPLY, COMMIT). Each step is journaled in the {@link
 * World} with the executing leader's term; a step with a gate waits on it (interruptibly).
 */
public class Work extends StateMachineProcedure<Work.Env, Work.S> {
  enum S {
    PREPARE,
    APPLY,
    COMMIT
  }

  /** What a leader executor gives its procedures. */
  record Env(World world, LeaderContext leader) {}

  String name = "";

  public Work() {}

  Work(String name) {
    this.name = name;
  }

  @Override
  protected Flow executeFromState(Env env, S state) throws InterruptedException {
    String key = name + ":" + state;
    CountDownLatch reached = env.world().reached.get(key);
    if (reached != null) {
      reached.countDown();
    }
    CountDownLatch gate = env.world().gates.get(key);
    if (gate != null) {
      gate.await();
    }
    env.world()
        .record(
            new World.Step(
                getProcId(), name, state.name(), env.leader().term(), env.leader().nodeId()));
    switch (state) {
      case PREPARE -> setNextState(S.APPLY);
      case APPLY -> setNextState(S.COMMIT);
      case COMMIT -> {
        return Flow.NO_MORE_STATE;
      }
    }
    return Flow.HAS_MORE_STATE;
  }

  @Override
  protected void rollbackState(Env env, S state) {}

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
    return S.PREPARE;
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
    return new ProcedureRegistry().register("Work", Work.class, Work::new);
  }
}
