package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A failed step in a state that cannot be rolled back is retried in that same state, whatever the
 * step said comes next: {@code NO_MORE_STATE} or another state named before failing never let the
 * procedure skip or end on a failed step.
 */
@Timeout(30)
class FailedStepRetryTest {

  /** How a {@link Fragile} step fails. */
  enum How {
    SET_FAILURE_AND_NO_MORE_STATE,
    NEXT_STATE_THEN_THROW
  }

  /** A: cannot be rolled back, fails once as configured; B: the last state. */
  public static final class Fragile extends StateMachineProcedure<TestEnv, Fragile.S> {
    enum S {
      A,
      B
    }

    How how = How.SET_FAILURE_AND_NO_MORE_STATE;

    public Fragile() {}

    Fragile(How how) {
      this.how = how;
    }

    @Override
    protected Flow executeFromState(TestEnv env, S state) {
      env.record("exec p:" + state);
      if (state == S.B) {
        return Flow.NO_MORE_STATE;
      }
      setNextState(S.B);
      if (env.shouldFail("p:A")) {
        if (how == How.NEXT_STATE_THEN_THROW) {
          throw new IllegalStateException("injected failure at p:A");
        }
        setFailure("p:A", new IOException("injected failure at p:A"));
        return Flow.NO_MORE_STATE;
      }
      return Flow.HAS_MORE_STATE;
    }

    @Override
    protected boolean isRollbackSupported(S state) {
      return state != S.A;
    }

    @Override
    protected void rollbackState(TestEnv env, S state) {
      env.record("rollback p:" + state);
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
      return S.A;
    }

    @Override
    protected void serializeStateData(DataOutputStream out) throws IOException {
      out.writeUTF(how.name());
    }

    @Override
    protected void deserializeStateData(DataInputStream in) throws IOException {
      how = How.valueOf(in.readUTF());
    }
  }

  private final Harness h =
      new Harness(new ProcedureRegistry().register("Fragile", Fragile.class, Fragile::new))
          .with(b -> b.retryBackoff(Duration.ofMillis(1), Duration.ofMillis(5)));

  @AfterEach
  void tearDown() {
    h.close();
  }

  @Test
  void setFailureWithNoMoreStateInAStateThatCannotBeRolledBackRunsTheStateAgain() throws Exception {
    assertRetriedInPlace(How.SET_FAILURE_AND_NO_MORE_STATE);
  }

  @Test
  void throwingAfterNamingTheNextStateRunsTheFailedStateAgain() throws Exception {
    assertRetriedInPlace(How.NEXT_STATE_THEN_THROW);
  }

  private void assertRetriedInPlace(How how) throws Exception {
    h.env.failNext("p:A", 2);
    h.start();
    long id = h.executor.submit(new Fragile(how));
    assertEquals(ProcedureState.SUCCESS, h.await(id).state());
    assertEquals(List.of("exec p:A", "exec p:A", "exec p:A", "exec p:B"), h.env.journal());
  }
}
