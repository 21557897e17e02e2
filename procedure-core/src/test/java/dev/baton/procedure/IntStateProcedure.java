package dev.baton.procedure;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * A test procedure whose states are plain ints from 0, with nothing to roll back and no data of its
 * own unless a subclass writes some: a subclass gives only its steps.
 */
abstract class IntStateProcedure extends StateMachineProcedure<TestEnv, Integer> {
  @Override
  protected void rollbackState(TestEnv env, Integer state) {}

  @Override
  protected Integer getState(int stateId) {
    return stateId;
  }

  @Override
  protected int getStateId(Integer state) {
    return state;
  }

  @Override
  protected Integer getInitialState() {
    return 0;
  }

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {}

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {}
}
