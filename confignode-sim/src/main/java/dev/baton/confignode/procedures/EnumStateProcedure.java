package dev.baton.confignode.procedures;

import dev.baton.confignode.ConfigNodeEnv;
import dev.baton.procedure.StateMachineProcedure;

/** A ConfigNode procedure whose states are the constants of an enum, in execution order. */
public abstract class EnumStateProcedure<S extends Enum<S>>
    extends StateMachineProcedure<ConfigNodeEnv, S> {
  private final S[] states;

  protected EnumStateProcedure(Class<S> type) {
    this.states = type.getEnumConstants();
  }

  @Override
  protected S getState(int stateId) {
    return states[stateId];
  }

  @Override
  protected int getStateId(S state) {
    return state.ordinal();
  }

  @Override
  protected S getInitialState() {
    return states[0];
  }

  /** Moves to the next constant. */
  protected Flow next(S state) {
    setNextState(states[state.ordinal() + 1]);
    return Flow.HAS_MORE_STATE;
  }

  /**
   * Fails the current step and stays in its state. What follows is the framework's: a rollback, or
   * for a state whose rollback is not supported, a retry of this same state after a backoff. A
   * failed step must not answer {@link Flow#NO_MORE_STATE}: StateMachineProcedure records that
   * before the retry is decided, and the retry would then end the procedure as a success without
   * running this state or any later one.
   */
  protected Flow failed(String source, Throwable cause) {
    setFailure(source, cause);
    return Flow.HAS_MORE_STATE;
  }
}
