package dev.baton.procedure.bench;

import dev.baton.procedure.StateMachineProcedure;
import java.time.Duration;

/**
 * A procedure that runs one step and then parks in WAITING_TIMEOUT for an hour: the live procedure
 * a recovery has to rebuild (a record in the store, a root stack, a deadline in the timeout queue).
 * In an environment that holds parking ({@link BenchEnv#holdParking}) its step waits until the
 * executor stops instead.
 */
final class ParkedProcedure extends StateMachineProcedure<BenchEnv, ParkedProcedure.State> {
  /** The registered type name. */
  static final String TYPE = "bench.Parked";

  /** How long the procedure waits; far longer than any benchmark run. */
  static final Duration PARK_TIME = Duration.ofHours(1);

  enum State {
    PARK,
    DONE
  }

  @Override
  protected Flow executeFromState(BenchEnv env, State state) throws InterruptedException {
    if (state == State.DONE) {
      return Flow.NO_MORE_STATE;
    }
    env.awaitParkingAllowed();
    env.parked.increment();
    waitTimeout(PARK_TIME.toMillis());
    setNextState(State.DONE);
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
    return State.PARK;
  }
}
