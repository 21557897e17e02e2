package dev.baton.procedure;

import java.util.Arrays;

/**
 * A procedure as the decision core sees it, as a plain mutable value: what tests and the simulation
 * feed {@link StepDecider}, {@link UnwindPlanner} and {@link RecoveryPlanner} through {@link
 * #FACTS}.
 */
final class ModelProc {
  static final ProcedureFacts<ModelProc> FACTS = new Facts();

  final long id;
  final long parent;
  final long root;
  ProcedureState state = ProcedureState.RUNNABLE;
  ProcedureFailure failure;
  int[] stackIndexes = new int[0];
  // per stack index: the step of the procedure it records
  int[] stackSteps = new int[0];
  int pendingChildren;
  long waitDeadline;
  long timeout;
  long submitted;
  boolean abortRequested;
  ProcedureFailure forced;
  boolean bypass;
  // FAILED with nothing to undo (a corrupt record)
  boolean failedTerminal;
  // the procedure's own state: the step it runs next (persisted)
  int userStep;
  // not persisted: a wake-up to take at the next turn
  boolean woken;
  // a state machine of this many states (0: a plain procedure): a restart that finds it RUNNABLE
  // counts its due state (userStep) as run
  int machineStates;
  // a restart counted the due state as run (and wrote it)
  boolean dueCounted;

  ModelProc(long id, long parent, long root) {
    this.id = id;
    this.parent = parent;
    this.root = root;
  }

  static ModelProc root(long id) {
    return new ModelProc(id, Procedure.NO_PARENT, id);
  }

  static ModelProc child(long id, ModelProc parent) {
    return new ModelProc(id, parent.id, parent.root);
  }

  ModelProc state(ProcedureState s) {
    state = s;
    return this;
  }

  /** Makes this a state machine of {@code states} states. */
  ModelProc stateMachine(int states) {
    machineStates = states;
    return this;
  }

  /** Whether a restart that finds it RUNNABLE counts its due state as run, not counted yet. */
  boolean dueStepUncounted() {
    return machineStates > 0 && !dueCounted && userStep < machineStates;
  }

  ModelProc indexes(int... idx) {
    stackIndexes = idx.clone();
    stackSteps = idx.clone();
    return this;
  }

  ModelProc failed(String why) {
    failure = new ProcedureFailure("test", why, "", false);
    return this;
  }

  boolean isFinished() {
    return state == ProcedureState.SUCCESS
        || state == ProcedureState.ROLLEDBACK
        || (state == ProcedureState.FAILED && failedTerminal);
  }

  /** A copy, as a store keeps it. */
  ModelProc copy() {
    ModelProc c = new ModelProc(id, parent, root);
    c.state = state;
    c.failure = failure;
    c.stackIndexes = stackIndexes.clone();
    c.stackSteps = stackSteps.clone();
    c.pendingChildren = pendingChildren;
    c.waitDeadline = waitDeadline;
    c.timeout = timeout;
    c.submitted = submitted;
    c.failedTerminal = failedTerminal;
    c.userStep = userStep;
    c.machineStates = machineStates;
    c.dueCounted = dueCounted;
    return c;
  }

  /** Records that stack index {@code index} holds this procedure's step {@code step}. */
  void addStackIndex(int index, int step) {
    stackIndexes = Arrays.copyOf(stackIndexes, stackIndexes.length + 1);
    stackIndexes[stackIndexes.length - 1] = index;
    stackSteps = Arrays.copyOf(stackSteps, stackSteps.length + 1);
    stackSteps[stackSteps.length - 1] = step;
  }

  /** The step the newest stack index records, or -1. */
  int newestStep() {
    return stackSteps.length == 0 ? -1 : stackSteps[stackSteps.length - 1];
  }

  void removeNewestStackIndex() {
    if (stackIndexes.length > 0) {
      stackIndexes = Arrays.copyOf(stackIndexes, stackIndexes.length - 1);
      stackSteps = Arrays.copyOf(stackSteps, stackSteps.length - 1);
    }
  }

  @Override
  public String toString() {
    return "p" + id + "(" + state + ")";
  }

  private static final class Facts implements ProcedureFacts<ModelProc> {
    @Override
    public long procId(ModelProc p) {
      return p.id;
    }

    @Override
    public long parentProcId(ModelProc p) {
      return p.parent;
    }

    @Override
    public long rootProcId(ModelProc p) {
      return p.root;
    }

    @Override
    public ProcedureState state(ModelProc p) {
      return p.state;
    }

    @Override
    public boolean isFinished(ModelProc p) {
      return p.isFinished();
    }

    @Override
    public boolean hasFailure(ModelProc p) {
      return p.failure != null;
    }

    @Override
    public int[] stackIndexes(ModelProc p) {
      return p.stackIndexes;
    }

    @Override
    public int pendingChildren(ModelProc p) {
      return p.pendingChildren;
    }

    @Override
    public long waitDeadline(ModelProc p) {
      return p.waitDeadline;
    }

    @Override
    public long timeout(ModelProc p) {
      return p.timeout;
    }

    @Override
    public long submittedTime(ModelProc p) {
      return p.submitted;
    }

    @Override
    public boolean abortRequested(ModelProc p) {
      return p.abortRequested;
    }

    @Override
    public ProcedureFailure forcedFailure(ModelProc p) {
      return p.forced;
    }

    @Override
    public boolean bypassRequested(ModelProc p) {
      return p.bypass;
    }

    @Override
    public boolean dueStepUncounted(ModelProc p) {
      return p.dueStepUncounted();
    }
  }
}
