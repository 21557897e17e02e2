package dev.baton.procedure;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A procedure written as a state machine over user states {@code S} (usually an enum). Each step
 * runs {@link #executeFromState} for the current state; {@link #setNextState} names the next one.
 *
 * <p>Rollback calls {@link #rollbackState} once for every state whose {@code executeFromState} ran
 * (the failing one included), newest first; never for a state that was only named as next. One case
 * is counted as run although the framework cannot know: the state that was due when the executor
 * crashed (it may have run without its outcome being persisted); the restart writes it down as run
 * before any step runs, so it is undone in its place, after every step recorded later, even if the
 * executor restarts again before the state's step ends. So rollbackState must cope with a state
 * that ran partly or not at all, as it must for a failing step anyway. A state whose {@link
 * #isRollbackSupported} is false is retried with backoff when it fails, instead of being rolled
 * back, and an abort is refused while the procedure is in it. A step fails by throwing or by
 * calling {@code setFailure}; either way what it did to the flow (the next state named, {@link
 * Flow#NO_MORE_STATE}, children added) is discarded: the failure rolls back, or, in such a state,
 * the same state runs again.
 *
 * <p>The cycle counter ({@link #getCycles}) counts consecutive steps in the same state, so a step
 * that waits in place can give up after a bound.
 */
public abstract class StateMachineProcedure<Env, S> extends Procedure<Env> {

  /** What a step tells the framework. */
  public enum Flow {
    HAS_MORE_STATE,
    NO_MORE_STATE
  }

  private static final int NO_STATE = -1;

  /** Ids of the states whose executeFromState ran, oldest first; consecutive repeats kept once. */
  private int[] executedStates = new int[0];

  private int nextStateId = NO_STATE;
  private int cycles;
  private boolean noMoreState;
  // The state and cycle count the current step started with (a failed step that is retried
  // starts again from them).
  private int stepStateId = NO_STATE;
  private int stepCycles;
  private boolean lastStepRecorded;
  private boolean lastStepUnsupportedRollback;
  private final List<Procedure<Env>> newChildren = new ArrayList<>();

  /**
   * Runs the step for {@code state}: names the next state ({@link #setNextState}) and may add
   * children ({@link #addChildProcedure}). Persisted before the next step; after a crash before
   * that, the same state runs again, so it must be idempotent. A failure (thrown, or {@link
   * #setFailure}) discards what the step named or added and rolls the tree back, this state
   * included; in a state whose {@link #isRollbackSupported} is false the same state is retried
   * after a backoff instead.
   *
   * @return {@link Flow#HAS_MORE_STATE} to run the next state, {@link Flow#NO_MORE_STATE} to finish
   *     (after the children added by this step, if any)
   */
  protected abstract Flow executeFromState(Env env, S state)
      throws ProcedureSuspendedException, ProcedureYieldException, InterruptedException;

  /**
   * Undoes what {@code executeFromState(env, state)} did. Called once for every state whose step
   * ran (the failing one and, after a crash, the one that was due included), newest first; it must
   * cope with a step that ran partly or not at all, and be idempotent (a crash before its outcome
   * is persisted calls it again). A thrown failure retries it after a backoff until it succeeds.
   */
  protected abstract void rollbackState(Env env, S state) throws IOException, InterruptedException;

  /** The state of id {@code stateId}, as {@link #getStateId} numbered it. */
  protected abstract S getState(int stateId);

  /**
   * A stable id of {@code state}, stored with the procedure: at least 0, distinct per state, and
   * unchanged across versions of the code (stored procedures are read back with it).
   */
  protected abstract int getStateId(S state);

  /** The state the first step runs. */
  protected abstract S getInitialState();

  /**
   * Called at the start of every step, right before {@link #executeFromState} for {@code state},
   * before anything of the step is recorded; the default does nothing. A fault hook of a test
   * environment may block here (interruptibly, so a stopping executor ends the wait like any step)
   * to hold the procedure at a named state.
   */
  protected void beforeState(Env env, S state) throws InterruptedException {}

  /** Whether {@code state} can be rolled back; if not, its failures are retried with backoff. */
  protected boolean isRollbackSupported(S state) {
    return true;
  }

  /** Names the state the next step runs. */
  protected final void setNextState(S state) {
    int id = getStateId(state);
    if (id < 0) {
      throw new IllegalArgumentException("state ids must be >= 0, got " + id + " for " + state);
    }
    nextStateId = id;
  }

  /** Adds children to start when the current step ends; this procedure waits for them. */
  @SafeVarargs
  protected final void addChildProcedure(Procedure<Env>... children) {
    newChildren.addAll(Arrays.asList(children));
  }

  /** The state the next (or current) step runs. */
  protected final S getCurrentState() {
    return nextStateId == NO_STATE ? getInitialState() : getState(nextStateId);
  }

  /** Consecutive steps run in the current state without moving to another one. */
  protected final int getCycles() {
    return cycles;
  }

  /** Default abort: accepted unless the current state cannot be rolled back. */
  @Override
  protected boolean abort(Env env) {
    return isRollbackSupported(getCurrentState());
  }

  @Override
  public String getStepName() {
    if (noMoreState && executedStates.length > 0) {
      return String.valueOf(getState(executedStates[executedStates.length - 1]));
    }
    return String.valueOf(getCurrentState());
  }

  @Override
  protected final Procedure<Env>[] execute(Env env)
      throws ProcedureYieldException, ProcedureSuspendedException, InterruptedException {
    lastStepRecorded = false;
    lastStepUnsupportedRollback = false;
    if (noMoreState) {
      return null; // the last state spawned children; they are done, so is this procedure
    }
    S state = getCurrentState();
    beforeState(env, state);
    int stateId = getStateId(state);
    if (nextStateId == NO_STATE) {
      nextStateId = stateId;
    }
    stepStateId = stateId;
    stepCycles = cycles;
    recordExecuted(stateId);
    lastStepUnsupportedRollback = !isRollbackSupported(state);
    newChildren.clear();
    Flow flow = executeFromState(env, state);
    if (nextStateId == stateId) {
      cycles++;
    } else {
      cycles = 0;
    }
    if (flow == Flow.NO_MORE_STATE) {
      noMoreState = true;
    }
    if (!newChildren.isEmpty()) {
      @SuppressWarnings("unchecked")
      Procedure<Env>[] children = newChildren.toArray(new Procedure[0]);
      newChildren.clear();
      return children;
    }
    if (noMoreState) {
      return null;
    }
    @SuppressWarnings("unchecked")
    Procedure<Env>[] again = new Procedure[] {this};
    return again;
  }

  private void recordExecuted(int stateId) {
    int n = executedStates.length;
    if (n > 0 && executedStates[n - 1] == stateId) {
      return;
    }
    executedStates = Arrays.copyOf(executedStates, n + 1);
    executedStates[n] = stateId;
    lastStepRecorded = true;
  }

  @Override
  protected final void rollback(Env env) throws IOException, InterruptedException {
    int n = executedStates.length;
    if (n == 0) {
      return;
    }
    rollbackState(env, getState(executedStates[n - 1]));
    executedStates = Arrays.copyOf(executedStates, n - 1);
  }

  @Override
  boolean dueStepUncounted() {
    if (noMoreState) {
      return false;
    }
    int n = executedStates.length;
    return n == 0 || executedStates[n - 1] != dueStateId();
  }

  @Override
  void countDueStepAsExecuted() {
    if (!dueStepUncounted()) {
      throw new IllegalStateException(
          "procedure " + getProcId() + ": its due state is counted already, or there is none");
    }
    nextStateId = dueStateId();
    recordExecuted(nextStateId);
  }

  /** The id of the state the next step runs. */
  private int dueStateId() {
    return nextStateId == NO_STATE ? getStateId(getInitialState()) : nextStateId;
  }

  @Override
  boolean lastStepAddsRollbackEntry() {
    return lastStepRecorded;
  }

  @Override
  boolean retryInsteadOfRollback() {
    return lastStepUnsupportedRollback;
  }

  /**
   * A failed step in a state that cannot be rolled back is retried in that same state, whatever it
   * named as next, and even if it returned {@link Flow#NO_MORE_STATE}: a failed step never ends the
   * procedure.
   */
  @Override
  void discardFailedStepOutcome() {
    if (stepStateId == NO_STATE) {
      return;
    }
    nextStateId = stepStateId;
    cycles = stepCycles;
    noMoreState = false;
    newChildren.clear();
  }

  @Override
  void writeState(DataOutputStream out) throws IOException {
    out.writeInt(nextStateId);
    out.writeInt(cycles);
    out.writeBoolean(noMoreState);
    out.writeInt(executedStates.length);
    for (int id : executedStates) {
      out.writeInt(id);
    }
    serializeStateData(out);
  }

  @Override
  void readState(DataInputStream in) throws IOException {
    nextStateId = in.readInt();
    cycles = in.readInt();
    noMoreState = in.readBoolean();
    int n = BoundedReads.readCount(in, Integer.BYTES, "executed states");
    executedStates = new int[n];
    for (int i = 0; i < n; i++) {
      executedStates[i] = in.readInt();
    }
    deserializeStateData(in);
  }
}
