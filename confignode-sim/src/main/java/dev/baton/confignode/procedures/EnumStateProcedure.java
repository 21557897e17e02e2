package dev.baton.confignode.procedures;

import dev.baton.confignode.ConfigNodeEnv;
import dev.baton.procedure.EnumStateMachineProcedure;
import dev.baton.procedure.LockState;
import dev.baton.procedure.scheduler.LockRequest;

/**
 * A ConfigNode procedure whose states are the constants of an enum, in execution order. A procedure
 * that names resources in {@link #lockRequest} takes them (all or none) before its first step and
 * holds them until it finishes, so conflicting operations on a database, region or DataNode run one
 * after another; children have access to what their parent holds.
 */
public abstract class EnumStateProcedure<S extends Enum<S>>
    extends EnumStateMachineProcedure<ConfigNodeEnv, S> {
  protected EnumStateProcedure(Class<S> type) {
    super(type);
  }

  /** The locks this procedure needs, or null for none. */
  protected LockRequest lockRequest(ConfigNodeEnv env) {
    return null;
  }

  @Override
  protected LockState acquireLock(ConfigNodeEnv env) {
    LockRequest request = lockRequest(env);
    return request == null ? LockState.LOCK_ACQUIRED : env.lockManager().acquire(this, request);
  }

  @Override
  protected void releaseLock(ConfigNodeEnv env) {
    env.lockManager().release(this);
  }

  @Override
  protected boolean holdLock(ConfigNodeEnv env) {
    return true;
  }

  /**
   * Fails the current step and stays in its state. What follows is the framework's: a rollback, or
   * for a state whose rollback is not supported, a retry of this same state after a backoff. A
   * failed step must not answer {@link Flow#NO_MORE_STATE}: StateMachineProcedure records that
   * before the retry is decided, and the retry would then end the procedure as a success without
   * running this state or any later one.
   */
  protected Flow failed(String source, Throwable cause) {
    setFailure(source, cause);
    return Flow.HAS_MORE_STATE;
  }
}
