package dev.baton.procedure;

import dev.baton.procedure.scheduler.Schedulable;
import dev.baton.procedure.store.RecordParts;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * A durable, rollback-able operation run by a {@link ProcedureExecutor}.
 *
 * <p>{@link #execute} runs one step; the executor persists the outcome before the next step starts.
 * A step may run again after a crash or a restart (at-least-once), so steps must be idempotent.
 * {@link #rollback} is called once for every executed step, newest first, when the procedure's root
 * fails. Returning children from {@code execute} makes this procedure WAIT until every child
 * finished; returning {@code this} alone asks for another step.
 *
 * <p>Fields of this class are changed only by the executor, on the one worker that runs the
 * procedure at a time (the executor's id lock guarantees that). The executor's own bookkeeping
 * (stack indexes, children, lock flag, deadlines) lives in a package-private {@link
 * ExecutorBookkeeping}, not here, reached through one narrow view per concept ({@link
 * StoredBookkeeping}, {@link TurnSignals}, {@link WorkerTurn}, {@link TimeoutChain}).
 *
 * <p>Schedulers, lock managers and limiters see a procedure as a {@link Schedulable}: its id and
 * type.
 *
 * @param <Env> the environment procedures act on
 */
public abstract class Procedure<Env> implements Schedulable {
  /** Parent id of a root procedure. */
  public static final long NO_PARENT = -1;

  private volatile long procId;
  private long parentProcId = NO_PARENT;
  private long rootProcId;
  private volatile ProcedureState state = ProcedureState.INITIALIZING;
  private String type;
  private long submittedTime;
  private volatile long lastUpdate;
  private long timeoutMillis;
  private long requestedWaitMillis = -1;
  private volatile ProcedureFailure failure;
  private byte[] result;
  // Executor-only: the complete parts of the record last persisted or recovered, and whether the
  // store holds a record of this procedure at all.
  private volatile RecordParts storedParts = RecordParts.NONE;
  private boolean recordStored;
  private volatile boolean abortRequested;
  // FAILED with nothing to undo: a record that could not be read back (reported as corrupt).
  private boolean failedTerminal;
  // Executor-only: stack indexes, children, lock flag, nonce, deadlines, id lock, signals.
  private final ExecutorBookkeeping exec = new ExecutorBookkeeping();
  // Executor-only: the client view as of the last persisted update.
  private volatile ProcedureInfo snapshot;

  // ---------------------------------------------------------------- to implement

  /**
   * Runs one step. The outcome (this procedure's state, its serialized data, the children) is
   * persisted before the next step starts; a crash or a leader change before that runs the step
   * again (at least once), so a step must be idempotent: running it twice has the effect of running
   * it once. It runs on a worker under this procedure's lock ({@link #acquireLock}) and may block
   * (the executor adds workers while one is stuck).
   *
   * <p>A failure, thrown (any exception but the two below and {@link InterruptedException}) or
   * recorded with {@link #setFailure}, fails the procedure: its root's whole tree stops starting
   * steps and is rolled back ({@link #rollback}), this step included.
   *
   * @return null when this procedure is done (SUCCESS), {@code this} alone to run another step, or
   *     children to run before this procedure runs again (it WAITS until every child finished)
   * @throws ProcedureYieldException to give the worker up: the procedure is persisted as it is and
   *     queued again at the back
   * @throws ProcedureSuspendedException to WAIT until {@link ProcedureExecutor#wake} is called
   * @throws InterruptedException when the executor stops: the step is not recorded and runs again
   *     on the next executor
   */
  protected abstract Procedure<Env>[] execute(Env env)
      throws ProcedureYieldException, ProcedureSuspendedException, InterruptedException;

  /**
   * Undoes one executed step. When a member of this procedure's tree failed, the executor calls it
   * once for every step of this procedure that ran (the failing one included), newest first,
   * interleaved with the other members' undos in exact reverse order of execution; never for a
   * procedure that reached SUCCESS (its parent's undo compensates). It receives the procedure as
   * its last persisted state plus what the undone steps left, so it must cope with a step that ran
   * partly or (after a crash) not at all, and, like a step, be idempotent: a crash before its
   * outcome is persisted runs it again.
   *
   * <p>A failure (thrown) does not stop the rollback: the same undo is retried after a backoff
   * ({@link ProcedureExecutor.Builder#retryBackoff}) until it succeeds, and the procedure reports
   * it as waiting.
   *
   * @throws InterruptedException when the executor stops: the undo runs again on the next one
   */
  protected abstract void rollback(Env env) throws IOException, InterruptedException;

  /**
   * Asked when a client or an operator requests an abort, on the requesting thread while a step may
   * be running: it must only decide, quickly and without blocking. Return true to accept: at its
   * next turn the procedure fails with an abort cause and its tree rolls back; false refuses
   * (nothing changes). It may be asked more than once.
   */
  protected abstract boolean abort(Env env);

  /**
   * Writes the procedure's own state, after every step and undo, so a restart continues from it.
   * Must be deterministic for a given state and must not fail for a state the procedure is in.
   * Default: none.
   */
  protected void serializeStateData(DataOutputStream out) throws IOException {}

  /**
   * The parts of the record about to be persisted, beside the head the executor encodes from this
   * procedure ({@link RecordParts}): complete, or a delta against the parts of the record last
   * persisted or recovered, so a large procedure writes only what changed in a step. Called on the
   * thread that persists, right before the head is encoded, so a procedure may set its result here
   * (the head's part of it). Clients see the result as the head's result followed by the parts in
   * index order ({@link ProcedureInfo#result()}). A delta for a procedure the store holds no record
   * of yet is written as complete parts. Default: no parts.
   */
  protected RecordParts partsToPersist() {
    return RecordParts.NONE;
  }

  /**
   * Reads what {@link #serializeStateData} wrote, into a new instance made by the registry, when
   * the executor recovers. A failure reports the procedure as corrupt (its tree fails); the rest
   * recover. Default: none.
   */
  protected void deserializeStateData(DataInputStream in) throws IOException {}

  // ---------------------------------------------------------------- optional hooks

  /** Takes the procedure's resource locks before a step. Default: no locks, always acquired. */
  protected LockState acquireLock(Env env) {
    return LockState.LOCK_ACQUIRED;
  }

  /** Releases what {@link #acquireLock} took. Default: nothing. */
  protected void releaseLock(Env env) {}

  /** Whether to keep the lock between steps (and across recovery) until finished. Default false. */
  protected boolean holdLock(Env env) {
    return false;
  }

  /** Called after the procedure was read back from the store, before recovery wires it. */
  protected void beforeRecover(Env env) {}

  /** Called once recovery has placed the procedure in the scheduler or a wait list. */
  protected void afterRecover(Env env) {}

  /** Called once when the procedure reached a terminal state. */
  protected void completionCleanup(Env env) {}

  /** Whether to go to the back of the queue after each step (round-robin). Default false. */
  protected boolean isYieldAfterExecution(Env env) {
    return false;
  }

  /**
   * Called when a WAITING_TIMEOUT wait or the procedure-level timeout expires. Return true to fail
   * the procedure with a timeout cause and roll back (the default); false to become runnable again.
   */
  protected boolean setTimeoutFailure(Env env) {
    return true;
  }

  // ---------------------------------------------------------------- for the procedure itself

  /** Marks the current step as failed; the root's rollback follows. */
  protected final void setFailure(String source, Throwable cause) {
    this.failure = ProcedureFailure.of(source, cause);
  }

  /** Sets the bytes returned to clients with {@link ProcedureInfo#result()}. */
  protected final void setResult(byte[] result) {
    this.result = result == null ? null : result.clone();
  }

  /**
   * As {@link #setResult}, without a copy: the procedure owns {@code result} from now on, and the
   * caller must not change it. For large results made afresh each step (a flow's graph).
   */
  protected final void setOwnedResult(byte[] result) {
    this.result = result;
  }

  /**
   * The bytes last set with {@link #setResult}, or read back with the record (set before {@link
   * #deserializeStateData} runs); null if none.
   */
  protected final byte[] getResult() {
    byte[] r = result;
    return r == null ? null : r.clone();
  }

  /**
   * The result as of the record last persisted or recovered: {@link #getResult} followed by the
   * record's parts in index order (see {@link #partsToPersist}). A procedure that writes parts
   * reads its whole result with this while its state is read back ({@link #deserializeStateData});
   * null if there is neither a result nor parts.
   */
  protected final byte[] getJoinedResult() {
    byte[] joined = ResultBytes.of(result, storedParts).bytes();
    return joined == null ? null : joined.clone();
  }

  /** Procedure-level timeout, measured from submission. 0 means none. */
  protected final void setTimeout(long timeoutMillis) {
    if (timeoutMillis < 0) {
      throw new IllegalArgumentException("timeout must be >= 0 ms, got " + timeoutMillis);
    }
    this.timeoutMillis = timeoutMillis;
  }

  /**
   * After the current step, park in WAITING_TIMEOUT for {@code millis}; when it expires, {@link
   * #setTimeoutFailure} decides whether the procedure fails or runs again. {@link
   * ProcedureExecutor#wake} ends the wait early.
   */
  protected final void waitTimeout(long millis) {
    if (millis < 0) {
      throw new IllegalArgumentException("wait must be >= 0 ms, got " + millis);
    }
    this.requestedWaitMillis = millis;
  }

  /**
   * Where the running step reports its calls to other systems, so that views of the executor name
   * the call the procedure waits on ({@link BlockedOn.ExternalCall}).
   */
  protected final CallReporter externalCalls() {
    return exec.callReporter();
  }

  /** The failure recorded for this procedure, or null. */
  protected final ProcedureFailure getFailure() {
    return failure;
  }

  /** The procedure-level timeout in milliseconds, 0 if none. */
  protected final long getTimeout() {
    return timeoutMillis;
  }

  /** Whether an abort was requested and accepted. */
  protected final boolean isAbortRequested() {
    return abortRequested;
  }

  // ---------------------------------------------------------------- read-only view

  @Override
  public final long getProcId() {
    return procId;
  }

  public final long getParentProcId() {
    return parentProcId;
  }

  public final long getRootProcId() {
    return rootProcId;
  }

  public final ProcedureState getState() {
    return state;
  }

  /** SUCCESS, ROLLEDBACK, or FAILED with nothing left to undo. */
  public final boolean isFinished() {
    return state == ProcedureState.SUCCESS
        || state == ProcedureState.ROLLEDBACK
        || (state == ProcedureState.FAILED && failedTerminal);
  }

  public final boolean isSuccess() {
    return state == ProcedureState.SUCCESS;
  }

  public final boolean isFailed() {
    return failure != null;
  }

  public final boolean hasParent() {
    return parentProcId != NO_PARENT;
  }

  /** The registered type name, set when submitted or loaded. */
  @Override
  public final String getType() {
    return type;
  }

  public final long getSubmittedTime() {
    return submittedTime;
  }

  public final long getLastUpdate() {
    return lastUpdate;
  }

  /** The user-facing name of the current step, or null. */
  public String getStepName() {
    return null;
  }

  @Override
  public String toString() {
    return type + "(pid=" + procId + ", state=" + state + ")";
  }

  // ---------------------------------------------------------------- executor side

  /** What its store record carries of the executor's bookkeeping (stack, children, lock, nonce). */
  final StoredBookkeeping stored() {
    return exec;
  }

  /** Wake, timeout, force-fail and bypass requests, set from any thread, taken at the next turn. */
  final TurnSignals signals() {
    return exec;
  }

  /** What the worker running it keeps between turns: the id lock, retries, lock wait, last call. */
  final WorkerTurn turn() {
    return exec;
  }

  /** Its deadlines' chain in the timeout queue, for the queue alone. */
  final TimeoutChain timeoutChain() {
    return exec;
  }

  /** Runs one step through the subclass; overridden by {@link StateMachineProcedure}. */
  Procedure<Env>[] doExecute(Env env)
      throws ProcedureYieldException, ProcedureSuspendedException, InterruptedException {
    return execute(env);
  }

  /** Undoes the newest executed step. */
  void doRollbackStep(Env env) throws IOException, InterruptedException {
    rollback(env);
  }

  /** Whether the step that just ran adds an entry to the root's rollback stack. */
  boolean lastStepAddsRollbackEntry() {
    return true;
  }

  /**
   * Whether recovery, finding this procedure RUNNABLE, counts its due step as executed (its next
   * step may have run before the crash without its outcome being persisted) and has not counted it
   * yet. Plain procedures count executions only when they are recorded: false. Reads only.
   */
  boolean dueStepUncounted() {
    return false;
  }

  /**
   * Counts the due step as executed (so a rollback undoes it); called by recovery only when {@link
   * #dueStepUncounted()} is true, and written to the store before any step runs.
   */
  void countDueStepAsExecuted() {
    throw new IllegalStateException(
        "procedure " + getProcId() + " does not count a due step as executed");
  }

  /** Whether a failure of the step that just ran should be retried instead of rolled back. */
  boolean retryInsteadOfRollback() {
    return false;
  }

  /**
   * The step that just ran failed and is retried: forget what it said comes next, so the retry runs
   * the same step again.
   */
  void discardFailedStepOutcome() {}

  /** Writes framework-owned subclass state (e.g. executed states) and then the user state. */
  void writeState(DataOutputStream out) throws IOException {
    serializeStateData(out);
  }

  void readState(DataInputStream in) throws IOException {
    deserializeStateData(in);
  }

  void setProcId(long procId) {
    this.procId = procId;
  }

  void setParent(long parentProcId, long rootProcId) {
    this.parentProcId = parentProcId;
    this.rootProcId = rootProcId;
  }

  void setType(String type) {
    this.type = type;
  }

  /** Moves to {@code next}, checking the state diagram. */
  void transitionTo(ProcedureState next) {
    ProcedureState current = state;
    if (current != next && !current.canTransitionTo(next)) {
      throw new IllegalStateException(
          "illegal transition " + current + " -> " + next + " for " + this);
    }
    state = next;
  }

  /** Sets a state read back from the store, without transition checks. */
  void restoreState(ProcedureState restored) {
    state = restored;
  }

  void markFailedTerminal(ProcedureFailure reason) {
    failure = reason;
    state = ProcedureState.FAILED;
    failedTerminal = true;
  }

  boolean isFailedTerminal() {
    return failedTerminal;
  }

  void setFailureRecord(ProcedureFailure failure) {
    this.failure = failure;
  }

  void clearFailure() {
    this.failure = null;
  }

  void setSubmittedTime(long t) {
    this.submittedTime = t;
  }

  void setLastUpdate(long t) {
    this.lastUpdate = t;
  }

  void setTimeoutMillis(long t) {
    this.timeoutMillis = t;
  }

  /** The wait asked for by the last step with {@link #waitTimeout}, or -1; resets it. */
  long takeRequestedWait() {
    long w = requestedWaitMillis;
    requestedWaitMillis = -1;
    return w;
  }

  /**
   * The parts of the record the executor persists now ({@link #partsToPersist}), complete when the
   * store holds no record of this procedure; from now on they are the stored parts.
   */
  RecordParts takePartsToPersist() {
    RecordParts parts = partsToPersist();
    RecordParts complete = parts.applyTo(storedParts);
    storedParts = complete;
    boolean stored = recordStored;
    recordStored = true;
    return stored ? parts : complete;
  }

  /** A record read back with these complete parts: the store holds them. */
  void recoveredParts(RecordParts parts) {
    storedParts = parts;
    recordStored = true;
  }

  byte[] getResultBytes() {
    return result;
  }

  void setResultBytes(byte[] result) {
    this.result = result;
  }

  void setAbortRequested(boolean requested) {
    this.abortRequested = requested;
  }

  /** The client view as of the last persisted update (computed now if never persisted). */
  ProcedureInfo snapshot() {
    ProcedureInfo s = snapshot;
    return s != null ? s : toInfo();
  }

  void refreshSnapshot() {
    snapshot = toInfo();
  }

  /** A client-facing snapshot. */
  ProcedureInfo toInfo() {
    ProcedureFailure f = failure;
    return new ProcedureInfo(
            procId,
            parentProcId,
            rootProcId,
            type,
            state,
            getStepName(),
            submittedTime,
            lastUpdate,
            null,
            f == null ? null : f.describe(),
            isFinished())
        // a result array is replaced, never changed, and so are the parts: shared, not copied
        .withResult(ResultBytes.of(result, storedParts));
  }
}
