package dev.baton.confignode.procedures;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * {@code steps} steps that do nothing (each one persisted like any step): for drills and
 * benchmarks. FIRST, then SECOND as many times as needed, then THIRD; the default three steps run
 * each once, and a one-step Noop runs FIRST only.
 */
public final class Noop extends ConfigNodeProcedure<Noop.S> {
  enum S {
    FIRST,
    SECOND,
    THIRD
  }

  /** Steps of a Noop without a {@code steps} argument. */
  public static final int DEFAULT_STEPS = 3;

  /** Most steps one Noop may take. */
  public static final int MAX_STEPS = 10_000;

  int steps = DEFAULT_STEPS;
  int done;

  public Noop() {
    super(S.class);
  }

  public Noop(int steps) {
    this();
    Validation.range("steps", steps, 1, MAX_STEPS);
    this.steps = steps;
  }

  @Override
  protected Flow executeFromState(ConfigNodeEnv env, S state) {
    done++;
    if (done >= steps) {
      return Flow.NO_MORE_STATE;
    }
    if (done == steps - 1) {
      setNextState(S.THIRD); // the last step
    } else if (state == S.FIRST) {
      setNextState(S.SECOND);
    } // else SECOND runs again
    return Flow.HAS_MORE_STATE;
  }

  @Override
  protected void rollbackState(ConfigNodeEnv env, S state) {}

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeInt(steps);
    out.writeInt(done);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    steps = in.readInt();
    done = in.readInt();
  }
}
