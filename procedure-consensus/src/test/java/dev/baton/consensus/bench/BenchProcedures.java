package dev.baton.consensus.bench;

import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.StateMachineProcedure;
import java.io.DataInputStream;
import java.io.DataOutputStream;

/** The procedures the consensus benchmark runs. */
final class BenchProcedures {
  /** Parked procedures wait this long: far beyond any benchmark. */
  static final long PARK_MILLIS = 3_600_000;

  private BenchProcedures() {}

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
  public static final class Noop3 extends StateMachineProcedure<Object, Three> {
    @Override
    protected Flow executeFromState(Object env, Three state) {
      if (state == Three.THREE) {
        return Flow.NO_MORE_STATE;
      }
      setNextState(Three.values()[state.ordinal() + 1]);
      return Flow.HAS_MORE_STATE;
    }

    @Override
    protected void rollbackState(Object env, Three state) {}

    @Override
    protected Three getState(int stateId) {
      return Three.values()[stateId];
    }

    @Override
    protected int getStateId(Three state) {
      return state.ordinal();
    }

    @Override
    protected Three getInitialState() {
      return Three.ONE;
    }

    @Override
    protected void serializeStateData(DataOutputStream out) {}

    @Override
    protected void deserializeStateData(DataInputStream in) {}
  }

  /** A live procedure that parks in WAITING_TIMEOUT after its first step. */
  public static final class Parked extends StateMachineProcedure<Object, Three> {
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
    protected Three getState(int stateId) {
      return Three.values()[stateId];
    }

    @Override
    protected int getStateId(Three state) {
      return state.ordinal();
    }

    @Override
    protected Three getInitialState() {
      return Three.ONE;
    }

    @Override
    protected void serializeStateData(DataOutputStream out) {}

    @Override
    protected void deserializeStateData(DataInputStream in) {}
  }
}
