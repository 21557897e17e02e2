package dev.baton.confignode.procedures;

import dev.baton.procedure.CallReporter;
import dev.baton.procedure.EnumStateMachineProcedure;
import dev.baton.procedure.LockState;
import dev.baton.procedure.scheduler.LockRequest;
import java.util.Arrays;
import java.util.List;

/**
 * A ConfigNode procedure whose states are the constants of an enum, in execution order. A procedure
 * that names resources in {@link #lockRequest} takes them (all or none) before its first step and
 * holds them until it finishes, so conflicting operations on a database, region or DataNode run one
 * after another; children have access to what their parent holds. Before each state's step the
 * environment's fault holds ({@link ConfigNodeEnv#holds()}) may hold it, on a node run with {@code
 * --faults}.
 */
public abstract class ConfigNodeProcedure<S extends Enum<S>>
    extends EnumStateMachineProcedure<ConfigNodeEnv, S> {
  private final Class<S> stateType;

  protected ConfigNodeProcedure(Class<S> type) {
    super(type);
    this.stateType = type;
  }

  /** The names of this procedure's states, in execution order. */
  public final List<String> stateNames() {
    return Arrays.stream(stateType.getEnumConstants()).map(Enum::name).toList();
  }

  /** Waits while a fault hold names this procedure's type and {@code state}. */
  @Override
  protected void beforeState(ConfigNodeEnv env, S state) throws InterruptedException {
    env.holds().awaitRelease(this, state.name());
  }

  /** Where the environment reports this procedure's DataNode calls. */
  final CallReporter calls() {
    return externalCalls();
  }

  /** The locks this procedure needs, or null for none. */
  protected LockRequest lockRequest(ConfigNodeEnv env) {
    return null;
  }

  @Override
  protected LockState acquireLock(ConfigNodeEnv env) {
    LockRequest request = lockRequest(env);
    return request == null
        ? LockState.LOCK_ACQUIRED
        : LockState.from(env.lockManager().acquire(this, request));
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
