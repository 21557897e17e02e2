package dev.baton.it.tls;

import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.StateMachineProcedure;

/** A procedure of two steps, each a store update replicated through Raft. */
public final class TwoSteps extends StateMachineProcedure<Object, Integer> {
  static final String TYPE = "TwoSteps";
  private static final int LAST = 1;

  static ProcedureRegistry registry() {
    return new ProcedureRegistry().register(TYPE, TwoSteps.class, TwoSteps::new);
  }

  @Override
  protected Flow executeFromState(Object env, Integer state) {
    if (state < LAST) {
      setNextState(state + 1);
      return Flow.HAS_MORE_STATE;
    }
    return Flow.NO_MORE_STATE;
  }

  @Override
  protected void rollbackState(Object env, Integer state) {}

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
}
