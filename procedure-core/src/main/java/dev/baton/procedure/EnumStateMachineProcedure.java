package dev.baton.procedure;

/**
 * A {@link StateMachineProcedure} whose states are the constants of an enum, stored by ordinal: the
 * first constant is the initial state, and {@link #next} moves to the following one. New constants
 * must only be added at the end, or stored procedures resume in the wrong state.
 */
public abstract class EnumStateMachineProcedure<Env, S extends Enum<S>>
    extends StateMachineProcedure<Env, S> {
  /**
   * Each enum's constants, one array per enum shared by its procedures (never written): {@link
   * Class#getEnumConstants} returns a fresh copy at every call, one per procedure built, and a new
   * leader builds every live procedure at once.
   */
  private static final ClassValue<Object[]> CONSTANTS =
      new ClassValue<>() {
        @Override
        protected Object[] computeValue(Class<?> type) {
          return type.getEnumConstants();
        }
      };

  private final S[] states;

  @SuppressWarnings("unchecked")
  protected EnumStateMachineProcedure(Class<S> type) {
    this.states = (S[]) CONSTANTS.get(type);
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

  /** Moves on to the constant after {@code state}. */
  protected Flow next(S state) {
    setNextState(states[state.ordinal() + 1]);
    return Flow.HAS_MORE_STATE;
  }
}
