package dev.baton.procedure;

import java.io.IOException;

/**
 * A test procedure whose CALL state reports a call to another system through {@link
 * Procedure#externalCalls()}: the call fails while the env says so ("call"), else it waits at the
 * env's gate "call" (in flight) and succeeds. CALL cannot be rolled back, so a failed call is
 * retried after the executor's backoff.
 */
public class CallingStep extends EnumStateMachineProcedure<TestEnv, CallingStep.S> {
  static final String TARGET = "DataNode 2 at 127.0.0.1:7001";
  static final String COMMAND = "sync_region CATCH_UP";
  static final String ERROR = "503 unavailable: injected";

  enum S {
    CALL,
    DONE
  }

  public CallingStep() {
    super(S.class);
  }

  @Override
  protected Flow executeFromState(TestEnv env, S state) throws InterruptedException {
    if (state == S.DONE) {
      return Flow.NO_MORE_STATE;
    }
    externalCalls().started(TARGET, COMMAND);
    if (env.shouldFail("call")) {
      externalCalls().failed(ERROR);
      setFailure("CallingStep", new IOException(ERROR));
      return Flow.HAS_MORE_STATE;
    }
    env.passGate("call");
    externalCalls().succeeded();
    return next(state);
  }

  @Override
  protected boolean isRollbackSupported(S state) {
    return state != S.CALL;
  }

  @Override
  protected void rollbackState(TestEnv env, S state) {}

  static ProcedureRegistry registry() {
    return new ProcedureRegistry().register("CallingStep", CallingStep.class, CallingStep::new);
  }
}
