package dev.baton.confignode.procedures;

import dev.baton.confignode.ConfigNodeEnv;
import java.io.DataInputStream;
import java.io.DataOutputStream;

/** Three states that do nothing: for drills and benchmarks. */
public final class Noop extends EnumStateProcedure<Noop.S> {
  enum S {
    FIRST,
    SECOND,
    THIRD
  }

  public Noop() {
    super(S.class);
  }

  @Override
  protected Flow executeFromState(ConfigNodeEnv env, S state) {
    return state == S.THIRD ? Flow.NO_MORE_STATE : next(state);
  }

  @Override
  protected void rollbackState(ConfigNodeEnv env, S state) {}

  @Override
  protected void serializeStateData(DataOutputStream out) {}

  @Override
  protected void deserializeStateData(DataInputStream in) {}
}
