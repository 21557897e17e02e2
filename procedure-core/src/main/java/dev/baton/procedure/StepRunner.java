package dev.baton.procedure;

import dev.baton.procedure.scheduler.Schedulable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one polled procedure on a worker, carrying out what {@link StepDecider} decides: checks its
 * root stack, applies its turn (wake-ups, timeouts, aborts; {@link StepPreparation}), takes its
 * lock, runs one step, persists the outcome and queues what comes next. When the root stack has
 * failed and no member runs, it unwinds it ({@link RollbackRunner}).
 */
final class StepRunner<Env> implements Consumer<Schedulable> {
  private static final Logger LOG = LoggerFactory.getLogger(StepRunner.class);

  private final ExecutorContext<Env> ctx;
  private final ProcedureCompletion<Env> completion;
  private final RollbackRunner<Env> rollback;
  private final StepPreparation<Env> preparation;
  private final ProcedureFacts<Procedure<Env>> facts = ProcedureFacts.procedures();

  StepRunner(
      ExecutorContext<Env> ctx, ProcedureCompletion<Env> completion, RollbackRunner<Env> rollback) {
    this.ctx = ctx;
    this.completion = completion;
    this.rollback = rollback;
    this.preparation = new StepPreparation<>(ctx);
  }

  /** A part of a run that may fail the executor. */
  private interface Action {
    void run() throws IOException, InterruptedException;
  }

  /** Runs {@code polled}, one of this executor's procedures (it queues nothing else). */
  @Override
  @SuppressWarnings("unchecked")
  public void accept(Schedulable polled) {
    Procedure<Env> proc = (Procedure<Env>) polled;
    if (!proc.turn().acquireTurn()) {
      return; // on a worker (maybe its write in flight): queued again when that ends
    }
    boolean[] handedOver = {false};
    guarded(proc, () -> handedOver[0] = runLocked(proc));
    if (!handedOver[0]) {
      releaseExecLock(proc);
    }
  }

  /** Lets go of the procedure; queues it again if a worker found it busy meanwhile. */
  private void releaseExecLock(Procedure<Env> proc) {
    if (proc.turn().releaseTurn()) {
      ctx.scheduler().addFront(proc);
    }
  }

  /** Runs {@code action}; a store failure or an executor error stops the executor. */
  private void guarded(Procedure<Env> proc, Action action) {
    try {
      action.run();
    } catch (IOException e) {
      if (ctx.isRunning()) {
        ctx.fail(e);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("executor error while running {}; stopping the executor", proc, e);
      ctx.fail(e);
    }
  }

  /**
   * Runs one step of {@code proc}, or unwinds its stack. Returns true if the step's store write was
   * handed over: the step ends later ({@link #endHandedOverStep}), the procedure held until then.
   */
  private boolean runLocked(Procedure<Env> proc) throws IOException, InterruptedException {
    if (!ctx.isRunning() || proc.isFinished() || ctx.procedures().get(proc.getProcId()) != proc) {
      return false; // a stale queue entry
    }
    RootProcedureStack<Env> stack = ctx.stacks().get(proc.getRootProcId());
    if (stack == null) {
      return false;
    }
    if (stack.acquire()) {
      boolean handedOver = false;
      try {
        handedOver = step(proc, stack);
      } finally {
        if (!handedOver) {
          stack.release();
        }
      }
      if (handedOver) {
        return true;
      }
    }
    unwindIfDue(stack);
    return false;
  }

  private void unwindIfDue(RootProcedureStack<Env> stack) throws IOException, InterruptedException {
    if (ctx.isRunning() && stack.tryStartRollback(ctx.now())) {
      rollback.unwind(stack);
    }
  }

  /** The end of a step whose write was handed over, on its worker, once the write completed. */
  private void endHandedOverStep(Procedure<Env> proc, RootProcedureStack<Env> stack) {
    try {
      stack.release();
      guarded(proc, () -> unwindIfDue(stack));
    } finally {
      releaseExecLock(proc);
    }
  }

  /** Decides whether the procedure may run now, then runs one step; true if handed over. */
  private boolean step(Procedure<Env> proc, RootProcedureStack<Env> stack)
      throws IOException, InterruptedException {
    StepDecider.Turn bypass = StepDecider.bypass(proc, facts);
    if (bypass != null) {
      return bypass.action() == StepDecider.Action.BYPASS && bypass(proc, stack);
    }
    switch (preparation.prepare(proc).action()) {
      case RUN -> {}
      case FAIL -> {
        fail(proc, stack);
        return false;
      }
      default -> {
        return false;
      }
    }
    if (!proc.stored().isLockHeld()) {
      LockState lock;
      try {
        lock = ctx.admission().acquireLock(proc);
      } catch (RuntimeException e) { // e.g. a lock wait timeout: the procedure fails
        proc.turn().endLockWait();
        proc.setFailure(proc.getType(), e);
        fail(proc, stack);
        return false;
      }
      if (lock == LockState.LOCK_YIELD_WAIT) {
        ctx.scheduler().addBack(proc);
        return false;
      }
      if (lock == LockState.LOCK_EVENT_WAIT) {
        if (proc.turn().startLockWait(System.nanoTime())) {
          ctx.metrics().lockWaitStarted(proc.getType());
        }
        return false; // parked on the lock; the release queues it again
      }
      long waited = proc.turn().endLockWait();
      if (waited != 0) {
        ctx.metrics().lockWaitEnded(proc.getType(), System.nanoTime() - waited);
      }
      proc.stored().setLockHeld(true);
    }
    if (!ctx.admission().admitStep(proc)) {
      releaseLockAfterStep(proc);
      return false; // waits for a slot of its type's limit; the freed slot queues it again
    }
    try {
      return execute(proc, stack);
    } finally {
      ctx.admission().stepDone(proc);
    }
  }

  /**
   * An operator bypassed the procedure and no child is pending ({@link StepDecider#bypass}): it
   * finishes as SUCCESS without running its remaining steps (a succeeded child wakes its parent; a
   * root retires its tree, releasing what it held). True if the write was handed over.
   */
  private boolean bypass(Procedure<Env> proc, RootProcedureStack<Env> stack) throws IOException {
    proc.signals().takeWakeRequest();
    proc.signals().takeTimeoutFired();
    proc.stored().setWaitDeadline(0);
    if (proc.getState() != ProcedureState.RUNNABLE) {
      proc.transitionTo(ProcedureState.RUNNABLE);
    }
    LOG.warn("procedure {} bypassed: finished without its remaining steps", proc.getProcId());
    StepUpdate<Env> update = succeed(proc, stack);
    return ctx.applyPipelined(update, () -> endHandedOverStep(proc, stack));
  }

  /**
   * The procedure failed: fail its root stack (no member starts a step from here on), and persist
   * it FAILED together with every RUNNABLE member that is not on a worker, also as FAILED: those
   * never run their due state, and a restart must not count that state as possibly run (it does for
   * a RUNNABLE record) and undo it.
   */
  private void fail(Procedure<Env> proc, RootProcedureStack<Env> stack) throws IOException {
    ctx.admission().failed(proc);
    proc.transitionTo(ProcedureState.FAILED);
    stack.setFailed(proc, proc.getFailure());
    List<Procedure<Env>> batch = new ArrayList<>();
    batch.add(proc);
    List<Procedure<Env>> idle = new ArrayList<>();
    try {
      for (Procedure<Env> m : stack.members()) {
        if (m != proc && m.getState() == ProcedureState.RUNNABLE && m.turn().tryAcquireTurn()) {
          idle.add(m);
          if (m.getState() == ProcedureState.RUNNABLE) {
            ctx.admission().failed(m);
            m.transitionTo(ProcedureState.FAILED);
            batch.add(m);
          }
        }
      }
      ctx.write(batch, List.of());
    } finally {
      idle.forEach(this::releaseExecLock);
    }
  }

  /**
   * Runs the step and applies its outcome; true if the outcome's write was handed over (the rest of
   * the step happens once it is durable).
   */
  private boolean execute(Procedure<Env> proc, RootProcedureStack<Env> stack)
      throws IOException, InterruptedException {
    Procedure<Env>[] children = null;
    boolean yielded = false;
    boolean suspended = false;
    long timeoutBefore = proc.getTimeout();
    try {
      long start = System.nanoTime();
      try {
        children = proc.doExecute(ctx.env());
      } finally {
        ctx.metrics().stepExecuted(proc.getType(), System.nanoTime() - start);
      }
    } catch (ProcedureYieldException e) {
      yielded = true;
    } catch (ProcedureSuspendedException e) {
      suspended = true;
    } catch (InterruptedException e) {
      releaseLockAfterStep(proc);
      throw e; // the executor is stopping: this step is not recorded as done
    } catch (Throwable t) {
      proc.setFailure(proc.getType(), t);
    }
    if (!ctx.isRunning() || Thread.currentThread().isInterrupted()) {
      throw new InterruptedException("executor stopping; step of " + proc + " not recorded");
    }
    ProcedureFailure stepFailure = proc.getFailure();
    proc.turn().stepEnded(stepFailure == null ? null : stepFailure.describe());
    if (proc.getTimeout() != timeoutBefore) {
      ctx.armProcedureDeadline(proc); // setTimeout was called by the step: arm the new deadline
    }
    if (proc.lastStepAddsRollbackEntry()) {
      stack.addEntry(proc);
    }
    long waitMillis = proc.takeRequestedWait();
    boolean failed = proc.isFailed();
    StepDecider.Outcome outcome =
        StepDecider.afterStep(
            result(yielded, suspended, proc, children),
            failed,
            failed && proc.retryInsteadOfRollback(),
            waitMillis);
    if (outcome == StepDecider.Outcome.RETRY) {
      scheduleRetry(proc);
      return false;
    }
    if (outcome == StepDecider.Outcome.FAIL) {
      releaseLockAfterStep(proc);
      fail(proc, stack);
      return false;
    }
    proc.turn().resetRetryAttempts();
    StepUpdate<Env> update =
        switch (outcome) {
          case YIELD ->
              StepUpdate.of(
                  proc,
                  () -> {
                    releaseLockAfterStep(proc);
                    ctx.scheduler().addBack(proc);
                  });
          case SUSPEND -> {
            proc.transitionTo(ProcedureState.WAITING);
            yield StepUpdate.of(proc, () -> releaseLockAfterStep(proc));
          }
          case WAIT -> waitAfter(proc, waitMillis);
          case CONTINUE -> continueWith(proc);
          case SPAWN -> spawn(proc, stack, children);
          default -> succeed(proc, stack);
        };
    return update != null && ctx.applyPipelined(update, () -> endHandedOverStep(proc, stack));
  }

  /** How the step ended: thrown, or what it returned. */
  private static <Env> StepDecider.StepResult result(
      boolean yielded, boolean suspended, Procedure<Env> proc, Procedure<Env>[] children) {
    if (yielded) {
      return StepDecider.StepResult.YIELDED;
    }
    if (suspended) {
      return StepDecider.StepResult.SUSPENDED;
    }
    if (children != null && children.length == 1 && children[0] == proc) {
      return StepDecider.StepResult.AGAIN;
    }
    return children != null && children.length > 0
        ? StepDecider.StepResult.CHILDREN
        : StepDecider.StepResult.DONE;
  }

  /** The step asked for another step after a wait of {@code waitMillis}. */
  private StepUpdate<Env> waitAfter(Procedure<Env> proc, long waitMillis) {
    long deadline = ctx.now() + waitMillis;
    proc.stored().setWaitDeadline(deadline);
    proc.transitionTo(ProcedureState.WAITING_TIMEOUT);
    return StepUpdate.of(
        proc,
        () -> {
          releaseLockAfterStep(proc);
          ctx.timeouts().add(deadline, TimeoutQueue.Kind.WAIT_EXPIRED, proc);
        });
  }

  /** The step asked for another step at once. */
  private StepUpdate<Env> continueWith(Procedure<Env> proc) {
    boolean yield = proc.isYieldAfterExecution(ctx.env());
    return StepUpdate.of(
        proc,
        () -> {
          releaseLockAfterStep(proc);
          if (yield) {
            ctx.scheduler().addBack(proc);
          } else {
            ctx.scheduler().addFront(proc);
          }
        });
  }

  /**
   * The step returned children: the parent's WAITING with the new children, then queue them; null
   * if the children are invalid (the parent failed).
   */
  private StepUpdate<Env> spawn(
      Procedure<Env> parent, RootProcedureStack<Env> stack, Procedure<Env>[] kids)
      throws IOException {
    long now = ctx.now();
    List<Procedure<Env>> children = new ArrayList<>(kids.length);
    for (Procedure<Env> child : kids) {
      if (child == null || child == parent || child.getProcId() != 0) {
        parent.setFailure(
            parent.getType(),
            new IllegalStateException("step returned an invalid child: " + child));
        releaseLockAfterStep(parent);
        fail(parent, stack);
        return null;
      }
      String type = ctx.codec().registry().typeOf(child).orElse(null);
      if (type == null) {
        parent.setFailure(
            parent.getType(), new UnknownProcedureTypeException(child.getClass().getName()));
        releaseLockAfterStep(parent);
        fail(parent, stack);
        return null;
      }
      child.setType(type);
      child.setProcId(ctx.ids().next());
      child.setParent(parent.getProcId(), parent.getRootProcId());
      child.setSubmittedTime(now);
      child.transitionTo(ProcedureState.RUNNABLE);
      children.add(child);
    }
    parent.stored().setPendingChildren(children.size());
    parent.transitionTo(ProcedureState.WAITING);
    List<Procedure<Env>> batch = new ArrayList<>(children.size() + 1);
    batch.add(parent);
    batch.addAll(children);
    return new StepUpdate<>(
        batch,
        List.of(),
        () -> {
          releaseLockAfterStep(parent);
          for (Procedure<Env> child : children) {
            ctx.procedures().put(child.getProcId(), child);
            stack.addMember(child);
            ctx.armProcedureDeadline(child);
            ctx.scheduler().addFront(child);
            ctx.metrics().submitted(child.getType());
          }
        });
  }

  private StepUpdate<Env> succeed(Procedure<Env> proc, RootProcedureStack<Env> stack) {
    proc.transitionTo(ProcedureState.SUCCESS);
    return proc.hasParent()
        ? completion.childSucceeded(proc, stack)
        : completion.rootFinished(proc, stack);
  }

  /** A step whose state cannot be rolled back failed: try it again after a backoff. */
  private void scheduleRetry(Procedure<Env> proc) throws IOException {
    int attempt = proc.turn().nextRetryAttempt();
    long wait = ctx.config().retryBackoffMillis(attempt);
    ctx.metrics().stepRetried(proc.getType());
    LOG.warn(
        "step {} of procedure {} failed ({}) and cannot be rolled back; retry {} in {} ms",
        proc.getStepName(),
        proc.getProcId(),
        proc.getFailure().describe(),
        attempt,
        wait);
    proc.clearFailure();
    proc.discardFailedStepOutcome();
    ctx.persist(proc);
    releaseLockAfterStep(proc);
    long until = ctx.now() + wait;
    ctx.admission().noteBackoff(proc, BlockedOn.TimerPurpose.RETRY_STEP, until);
    ctx.timeouts().add(until, TimeoutQueue.Kind.RETRY_STEP, proc);
  }

  private void releaseLockAfterStep(Procedure<Env> proc) {
    if (proc.stored().isLockHeld() && !proc.holdLock(ctx.env())) {
      completion.releaseHeldLock(proc);
    }
  }
}
