package dev.baton.procedure.bench;

import dev.baton.procedure.StateMachineProcedure;

/**
 * A three-state procedure whose states do nothing: A, B, C, then done. What it costs to run is the
 * framework's cost per step (scheduling, encoding, the store write), which the benchmark measures.
 */
final class NoopSteps extends StateMachineProcedure<BenchEnv, NoopSteps.State> {
  /** The registered type name. */
  static final String TYPE = "bench.NoopSteps";

  /** Steps one procedure runs: one per state. */
  static final int STEPS = State.values().length;

  enum State {
    A,
    B,
    C
  }

  @Override
  protected Flow executeFromState(BenchEnv env, State state) {
    env.stepRan();
    switch (state) {
      case A -> setNextState(State.B);
      case B -> setNextState(State.C);
      case C -> {
        return Flow.NO_MORE_STATE;
      }
    }
    return Flow.HAS_MORE_STATE;
  }

  @Override
  protected void rollbackState(BenchEnv env, State state) {}

  @Override
  protected State getState(int stateId) {
    return State.values()[stateId];
  }

  @Override
  protected int getStateId(State state) {
    return state.ordinal();
  }

  @Override
  protected State getInitialState() {
    return State.A;
  }

  @Override
  protected void completionCleanup(BenchEnv env) {
    env.procedureFinished();
  }
}
