package dev.baton.procedure;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.function.LongSupplier;

/**
 * A two-state test procedure: WAIT parks it in WAITING_TIMEOUT for {@code waitMillis}; when the
 * wait expires it carries on (no timeout failure) with DONE. Both states journal the clock time
 * they ran at ("exec name:WAIT@t"), so a test can tell when the wait ended.
 */
public class WaitingStep extends StateMachineProcedure<TestEnv, WaitingStep.S> {
  enum S {
    WAIT,
    DONE
  }

  private final LongSupplier clock;
  String name = "";
  long waitMillis;

  WaitingStep(LongSupplier clock) {
    this.clock = clock;
  }

  WaitingStep(LongSupplier clock, String name, long waitMillis) {
    this(clock);
    this.name = name;
    this.waitMillis = waitMillis;
  }

  @Override
  protected Flow executeFromState(TestEnv env, S state) {
    env.record("exec " + name + ":" + state + "@" + clock.getAsLong());
    if (state == S.WAIT) {
      waitTimeout(waitMillis);
      setNextState(S.DONE);
      return Flow.HAS_MORE_STATE;
    }
    return Flow.NO_MORE_STATE;
  }

  @Override
  protected boolean setTimeoutFailure(TestEnv env) {
    return false; // the wait ending is the expected way on
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
    return S.WAIT;
  }

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeUTF(name);
    out.writeLong(waitMillis);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    name = in.readUTF();
    waitMillis = in.readLong();
  }

  /** The same procedure under another registered type name. */
  public static final class Other extends WaitingStep {
    Other(LongSupplier clock) {
      super(clock);
    }

    Other(LongSupplier clock, String name, long waitMillis) {
      super(clock, name, waitMillis);
    }
  }
}
