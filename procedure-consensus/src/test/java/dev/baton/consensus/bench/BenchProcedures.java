package dev.baton.consensus.bench;

import dev.baton.procedure.EnumStateMachineProcedure;
import dev.baton.procedure.ProcedureRegistry;
import java.io.DataInputStream;
import java.io.DataOutputStream;

/** The procedures the consensus benchmark runs. */
final class BenchProcedures {
  /** Parked procedures wait this long: far beyond any benchmark. */
  static final long PARK_MILLIS = 3_600_000;

  /** While not null, each {@link Noop3} step records its start time here (the breakdown). */
  static volatile StepTrace stepStarts;

  private BenchProcedures() {}

  /** Starts recording the step start times of procedures from {@code base} on. */
  static StepTrace traceSteps(long base, int capacity) {
    StepTrace t = new StepTrace(base, capacity);
    stepStarts = t;
    return t;
  }

  static void stopTracing() {
    stepStarts = null;
  }

  static ProcedureRegistry registry() {
    return new ProcedureRegistry()
        .register("Noop3", Noop3.class, Noop3::new)
        .register("Parked", Parked.class, Parked::new);
  }

  enum Three {
    ONE,
    TWO,
    THREE
  }

  /** Three states that do nothing: measures the framework and replication alone. */
  public static final class Noop3 extends EnumStateMachineProcedure<Object, Three> {
    public Noop3() {
      super(Three.class);
    }

    @Override
    protected Flow executeFromState(Object env, Three state) {
      StepTrace trace = stepStarts;
      if (trace != null) {
        trace.record(getProcId(), state.ordinal(), System.nanoTime());
      }
      return state == Three.THREE ? Flow.NO_MORE_STATE : next(state);
    }

    @Override
    protected void rollbackState(Object env, Three state) {}

    @Override
    protected void serializeStateData(DataOutputStream out) {}

    @Override
    protected void deserializeStateData(DataInputStream in) {}
  }

  /** A live procedure that parks in WAITING_TIMEOUT after its first step. */
  public static final class Parked extends EnumStateMachineProcedure<Object, Three> {
    public Parked() {
      super(Three.class);
    }

    @Override
    protected Flow executeFromState(Object env, Three state) {
      if (state == Three.ONE) {
        waitTimeout(PARK_MILLIS);
        setNextState(Three.TWO);
        return Flow.HAS_MORE_STATE;
      }
      return Flow.NO_MORE_STATE;
    }

    @Override
    protected void rollbackState(Object env, Three state) {}

    @Override
    protected void serializeStateData(DataOutputStream out) {}

    @Override
    protected void deserializeStateData(DataInputStream in) {}
  }
}
