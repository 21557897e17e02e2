package dev.baton.procedure;

/**
 * What the executor's decision core ({@link StepDecider}, {@link UnwindPlanner}, {@link
 * RecoveryPlanner}) reads of a procedure: ids, state, failure, rollback-stack indexes, children,
 * deadlines and operator signals. The core is written against this view, not against {@link
 * Procedure}, so its tests and the simulation feed it plain values; the executor passes its
 * procedures through {@link #procedures()}.
 *
 * @param <P> the type describing one procedure
 */
interface ProcedureFacts<P> {
  long procId(P p);

  long parentProcId(P p);

  long rootProcId(P p);

  ProcedureState state(P p);

  /** SUCCESS, ROLLEDBACK, or FAILED with nothing left to undo. */
  boolean isFinished(P p);

  /** Whether a failure is recorded. */
  boolean hasFailure(P p);

  /** Positions of the procedure's executed steps in its root's rollback stack, oldest first. */
  int[] stackIndexes(P p);

  /** Children the procedure still waits for, as last counted. */
  int pendingChildren(P p);

  /** When a WAITING_TIMEOUT wait expires (executor clock, ms). */
  long waitDeadline(P p);

  /** The procedure-level timeout in ms, measured from submission; 0 if none. */
  long timeout(P p);

  /** When the procedure was submitted (executor clock, ms). */
  long submittedTime(P p);

  boolean abortRequested(P p);

  /** An operator's force-fail not yet taken, or null. */
  ProcedureFailure forcedFailure(P p);

  boolean bypassRequested(P p);

  /**
   * Whether a restart that finds the procedure RUNNABLE counts its due step as executed (it may
   * have run before the crash without its outcome being persisted), and no earlier restart has
   * counted and written it yet: a state machine's due state (see {@link StateMachineProcedure}).
   */
  boolean dueStepUncounted(P p);

  default boolean hasParent(P p) {
    return parentProcId(p) != Procedure.NO_PARENT;
  }

  /** The view of the executor's own procedures. */
  @SuppressWarnings("unchecked")
  static <Env> ProcedureFacts<Procedure<Env>> procedures() {
    return (ProcedureFacts<Procedure<Env>>) (ProcedureFacts<?>) OfProcedures.INSTANCE;
  }

  /** {@link ProcedureFacts} of {@link Procedure}: its getters and its executor bookkeeping. */
  final class OfProcedures implements ProcedureFacts<Procedure<Object>> {
    private static final OfProcedures INSTANCE = new OfProcedures();

    private OfProcedures() {}

    @Override
    public long procId(Procedure<Object> p) {
      return p.getProcId();
    }

    @Override
    public long parentProcId(Procedure<Object> p) {
      return p.getParentProcId();
    }

    @Override
    public long rootProcId(Procedure<Object> p) {
      return p.getRootProcId();
    }

    @Override
    public ProcedureState state(Procedure<Object> p) {
      return p.getState();
    }

    @Override
    public boolean isFinished(Procedure<Object> p) {
      return p.isFinished();
    }

    @Override
    public boolean hasFailure(Procedure<Object> p) {
      return p.isFailed();
    }

    @Override
    public int[] stackIndexes(Procedure<Object> p) {
      return p.stored().getStackIndexes();
    }

    @Override
    public int pendingChildren(Procedure<Object> p) {
      return p.stored().getPendingChildren();
    }

    @Override
    public long waitDeadline(Procedure<Object> p) {
      return p.stored().getWaitDeadline();
    }

    @Override
    public long timeout(Procedure<Object> p) {
      return p.getTimeout();
    }

    @Override
    public long submittedTime(Procedure<Object> p) {
      return p.getSubmittedTime();
    }

    @Override
    public boolean abortRequested(Procedure<Object> p) {
      return p.isAbortRequested();
    }

    @Override
    public ProcedureFailure forcedFailure(Procedure<Object> p) {
      return p.signals().forcedFailure();
    }

    @Override
    public boolean bypassRequested(Procedure<Object> p) {
      return p.signals().isBypassRequested();
    }

    @Override
    public boolean dueStepUncounted(Procedure<Object> p) {
      return p.dueStepUncounted();
    }
  }
}
