package dev.baton.procedure;

import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.StoreRecord;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

/**
 * A test procedure that builds a random tree: states A, B (spawns {@code fanout} children of depth
 * {@code depth - 1}), C. Every execution and rollback is journaled; failures come from the env.
 */
public class TreeStep extends StateMachineProcedure<TestEnv, TreeStep.S> {
  enum S {
    A,
    B,
    C
  }

  String name = "";
  int depth;
  int fanout;

  public TreeStep() {}

  TreeStep(String name, int depth, int fanout) {
    this.name = name;
    this.depth = depth;
    this.fanout = fanout;
  }

  @Override
  protected Flow executeFromState(TestEnv env, S state) {
    env.record("exec " + name + ":" + state);
    if (env.shouldFail(name + ":" + state)) {
      throw new IllegalStateException("injected failure at " + name + ":" + state);
    }
    switch (state) {
      case A -> setNextState(S.B);
      case B -> {
        if (depth > 0) {
          for (int i = 0; i < fanout; i++) {
            addChildProcedure(new TreeStep(name + "." + i, depth - 1, fanout));
          }
        }
        setNextState(S.C);
      }
      case C -> {
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
    out.writeInt(depth);
    out.writeInt(fanout);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    name = in.readUTF();
    depth = in.readInt();
    fanout = in.readInt();
  }

  static ProcedureRegistry registry() {
    return new ProcedureRegistry().register("TreeStep", TreeStep.class, TreeStep::new);
  }

  /**
   * The due state ("name:STATE") of every tree member stored RUNNABLE in {@code store}: a restart
   * counts it as possibly run before the crash (its outcome may have been lost), so it may be
   * undone although it never ran. Starts the (stopped) store to read it and stops it again.
   */
  static Set<String> storedRunnableDueStates(ProcedureStore store) throws IOException {
    store.start();
    ProcedureCodec codec = new ProcedureCodec(registry());
    Set<String> out = new HashSet<>();
    try {
      for (StoreRecord r : store.load().records()) {
        if (codec.decode(r.procId(), r.data()) instanceof TreeStep t
            && t.getState() == ProcedureState.RUNNABLE) {
          out.add(t.name + ":" + t.getCurrentState());
        }
      }
    } finally {
      store.stop();
    }
    return out;
  }
}
