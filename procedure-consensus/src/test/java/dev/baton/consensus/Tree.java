package dev.baton.consensus;

import dev.baton.procedure.StateMachineProcedure;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * A test procedure with children: SPAWN adds {@code children} {@link Work} children (their ids come
 * from the leader executor's reserved id blocks, not from submissions), FINISH ends it once they
 * all succeeded.
 */
public class Tree extends StateMachineProcedure<Work.Env, Tree.S> {
  enum S {
    SPAWN,
    FINISH
  }

  String name = "";
  int children;

  public Tree() {}

  Tree(String name, int children) {
    this.name = name;
    this.children = children;
  }

  @Override
  protected Flow executeFromState(Work.Env env, S state) {
    env.world()
        .record(
            new World.Step(
                getProcId(), name, state.name(), env.leader().term(), env.leader().nodeId()));
    if (state == S.SPAWN) {
      for (int i = 0; i < children; i++) {
        addChildProcedure(new Work(name + "-" + i));
      }
      setNextState(S.FINISH);
      return Flow.HAS_MORE_STATE;
    }
    return Flow.NO_MORE_STATE;
  }

  @Override
  protected void rollbackState(Work.Env env, S state) {}

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
    return S.SPAWN;
  }

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeUTF(name);
    out.writeInt(children);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    name = in.readUTF();
    children = in.readInt();
  }
}
