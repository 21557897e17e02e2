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

  /** {@link Steps} whose B cannot be rolled back and fails (while the env says so) as told. */
  public static final class Fragile extends Steps {
    How how = How.SET_FAILURE_AND_NO_MORE_STATE;

    public Fragile() {}

    Fragile(How how) {
      super("p");
      this.how = how;
      this.unsupportedB = true;
    }

    @Override
    protected Flow executeFromState(TestEnv env, S state) throws InterruptedException {
      if (state != S.B || !env.shouldFail("p:B")) {
        return super.executeFromState(env, state);
      }
      env.record("exec p:B");
      setNextState(S.C);
      if (how == How.NEXT_STATE_THEN_THROW) {
        throw new IllegalStateException("injected failure at p:B");
      }
      setFailure("p:B", new IOException("injected failure at p:B"));
      return Flow.NO_MORE_STATE;
    }

    @Override
    protected void serializeStateData(DataOutputStream out) throws IOException {
      super.serializeStateData(out);
      out.writeUTF(how.name());
    }

    @Override
    protected void deserializeStateData(DataInputStream in) throws IOException {
      super.deserializeStateData(in);
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
    h.env.failNext("p:B", 2);
    h.start();
    long id = h.executor.submit(new Fragile(how));
    assertEquals(ProcedureState.SUCCESS, h.await(id).state());
    assertEquals(
        List.of("exec p:A", "exec p:B", "exec p:B", "exec p:B", "exec p:C"), h.env.journal());
  }
}
