package dev.baton.procedure.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.StateMachineProcedure;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ProcedureTestKitTest {

  /** The outside world of these procedures: a list of applied operations (like a DataNode). */
  static final class World {
    final List<String> applied = new ArrayList<>();

    synchronized void applyOnce(String op) {
      if (!applied.contains(op)) {
        applied.add(op);
      }
    }

    synchronized void applyAlways(String op) {
      applied.add(op);
    }

    synchronized List<String> snapshot() {
      return new ArrayList<>(applied);
    }
  }

  enum S {
    ONE,
    TWO,
    THREE
  }

  /** Base: three states, result = the persisted counter. */
  abstract static class Base extends StateMachineProcedure<World, S> {
    int counter;

    @Override
    protected Flow executeFromState(World world, S state) {
      apply(world, "op-" + state);
      counter++;
      if (state == S.THREE) {
        setResult(ByteBuffer.allocate(Integer.BYTES).putInt(counter).array());
        return Flow.NO_MORE_STATE;
      }
      setNextState(S.values()[state.ordinal() + 1]);
      return Flow.HAS_MORE_STATE;
    }

    abstract void apply(World world, String op);

    @Override
    protected void rollbackState(World world, S state) {}

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
      return S.ONE;
    }
  }

  /** Idempotent steps, all state serialized: passes. */
  public static final class Good extends Base {
    @Override
    void apply(World world, String op) {
      world.applyOnce(op);
    }

    @Override
    protected void serializeStateData(DataOutputStream out) throws IOException {
      out.writeInt(counter);
    }

    @Override
    protected void deserializeStateData(DataInputStream in) throws IOException {
      counter = in.readInt();
    }
  }

  /** Applies its operation every time a step runs: a re-run duplicates it. */
  public static final class NotIdempotent extends Base {
    @Override
    void apply(World world, String op) {
      world.applyAlways(op);
    }

    @Override
    protected void serializeStateData(DataOutputStream out) throws IOException {
      out.writeInt(counter);
    }

    @Override
    protected void deserializeStateData(DataInputStream in) throws IOException {
      counter = in.readInt();
    }
  }

  /** Does not serialize its counter: after a restart the result is wrong. */
  public static final class ForgetsState extends Base {
    @Override
    void apply(World world, String op) {
      world.applyOnce(op);
    }
  }

  private static ProcedureRegistry registry() {
    return new ProcedureRegistry()
        .register("Good", Good.class, Good::new)
        .register("NotIdempotent", NotIdempotent.class, NotIdempotent::new)
        .register("ForgetsState", ForgetsState.class, ForgetsState::new);
  }

  @Test
  void idempotentProcedureWithPersistedStatePasses() {
    var report =
        ProcedureTestKit.assertRecoversAtEveryStep(
            registry(), World::new, Good::new, World::snapshot);
    assertEquals(ProcedureState.SUCCESS, report.actual().state());
    // three steps, each crashed before and after its persist
    assertTrue(report.restarts() >= 6, "restarts: " + report.restarts());
  }

  @Test
  void nonIdempotentStepIsCaught() {
    AssertionError e =
        assertThrows(
            AssertionError.class,
            () ->
                ProcedureTestKit.assertRecoversAtEveryStep(
                    registry(), World::new, NotIdempotent::new, World::snapshot));
    assertTrue(e.getMessage().contains("environment"), e.getMessage());
  }

  @Test
  void procedureThatForgetsToPersistStateIsCaught() {
    AssertionError e =
        assertThrows(
            AssertionError.class,
            () ->
                ProcedureTestKit.assertRecoversAtEveryStep(
                    registry(), World::new, ForgetsState::new, World::snapshot));
    assertTrue(e.getMessage().contains("result differs"), e.getMessage());
  }
}
