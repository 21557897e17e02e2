package dev.baton.confignode.procedures;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/** Parks in WAITING_TIMEOUT for a while, then finishes: for drills (live procedures, timeouts). */
public final class Sleep extends ConfigNodeProcedure<Sleep.S> {
  enum S {
    SLEEP,
    WAKE
  }

  long millis;

  public Sleep() {
    super(S.class);
  }

  public Sleep(long millis) {
    this();
    if (millis < 0) {
      throw new IllegalArgumentException("millis must be >= 0: " + millis);
    }
    this.millis = millis;
  }

  @Override
  protected Flow executeFromState(ConfigNodeEnv env, S state) {
    if (state == S.SLEEP) {
      waitTimeout(millis);
      return next(state);
    }
    return Flow.NO_MORE_STATE;
  }

  /** The wait ending is the point, not a failure. */
  @Override
  protected boolean setTimeoutFailure(ConfigNodeEnv env) {
    return false;
  }

  @Override
  protected void rollbackState(ConfigNodeEnv env, S state) {}

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeLong(millis);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    millis = in.readLong();
  }
}
