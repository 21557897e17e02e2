package dev.baton.procedure;

import java.io.IOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the unwind of a failed root stack that {@link UnwindPlanner} plans: from the newest
 * entry down, every executed step of every member that has not succeeded is rolled back and
 * persisted, so a restart during rollback continues where it stopped. A succeeded child is skipped:
 * the parent's rollback of the step that spawned it compensates. At the end every unfinished member
 * is ROLLEDBACK and the tree completes.
 *
 * <p>Runs on one worker while the stack is claimed ({@link RootProcedureStack#tryStartRollback}),
 * so no member runs meanwhile. Each rollback step runs under the procedure's lock, taken and
 * released as around a step (kept if held across steps); a procedure parked on its lock pauses the
 * unwind, and its wake-up resumes it.
 */
final class RollbackRunner<Env> {
  private static final Logger LOG = LoggerFactory.getLogger(RollbackRunner.class);

  private final ExecutorContext<Env> ctx;
  private final ProcedureCompletion<Env> completion;
  private final ProcedureFacts<Procedure<Env>> facts = ProcedureFacts.procedures();

  RollbackRunner(ExecutorContext<Env> ctx, ProcedureCompletion<Env> completion) {
    this.ctx = ctx;
    this.completion = completion;
  }

  void unwind(RootProcedureStack<Env> stack) throws IOException, InterruptedException {
    boolean done = false;
    try {
      done = unwindClaimed(stack);
    } finally {
      if (!done && stack.isRollingBack()) {
        stack.pauseRollback(0); // interrupted: release the claim, a restart continues
      }
    }
  }

  private boolean unwindClaimed(RootProcedureStack<Env> stack)
      throws IOException, InterruptedException {
    Procedure<Env> root = ctx.procedures().get(stack.rootProcId());
    if (root == null) {
      return true;
    }
    markTreeFailed(root, stack);
    ctx.admission().rollbackStarting(stack);
    while (true) {
      UnwindPlanner.Next<Procedure<Env>> next =
          UnwindPlanner.next(stack.rootProcId(), stack.newestEntry(), facts);
      switch (next.move()) {
        case FINISH -> {
          finish(root, stack);
          return true;
        }
        case SKIP -> {
          if (!ctx.isRunning()) {
            return false;
          }
          stack.popEntry(); // compensated by its parent's rollback
        }
        case UNDO -> {
          if (!ctx.isRunning() || !undo(stack, next)) {
            return false;
          }
        }
      }
    }
  }

  /** Runs one planned undo under the member's lock; false if the unwind pauses. */
  private boolean undo(RootProcedureStack<Env> stack, UnwindPlanner.Next<Procedure<Env>> next)
      throws IOException, InterruptedException {
    Procedure<Env> proc = next.member();
    if (next.markFailed()) {
      proc.transitionTo(ProcedureState.FAILED);
    }
    if (!lockForRollbackStep(stack, proc)) {
      return false;
    }
    try {
      return rollbackStep(stack, next);
    } finally {
      releaseLockAfterRollbackStep(proc);
    }
  }

  /**
   * Persists, in one batch, the root and every member that is neither finished nor FAILED as
   * FAILED, before the first undo ({@link UnwindPlanner#failTree}).
   */
  private void markTreeFailed(Procedure<Env> root, RootProcedureStack<Env> stack)
      throws IOException {
    UnwindPlanner.TreeFailure<Procedure<Env>> plan =
        UnwindPlanner.failTree(root, stack.members(), facts);
    if (plan.rootNeedsCause()) {
      ProcedureFailure cause = stack.firstFailure();
      root.setFailureRecord(
          cause != null
              ? cause
              : new ProcedureFailure("executor", "a member of the tree failed", "", false));
    }
    for (Procedure<Env> m : plan.markFailed()) {
      m.transitionTo(ProcedureState.FAILED);
    }
    if (!plan.markFailed().isEmpty()) {
      ctx.write(plan.markFailed(), List.of());
    }
  }

  /**
   * Takes the lock of {@code proc} for its rollback step, as for a step; false if the unwind must
   * pause: parked on the lock (the grant queues {@code proc}, whose turn resumes the unwind), told
   * to yield, or the lock could not be taken (retried after a backoff).
   */
  private boolean lockForRollbackStep(RootProcedureStack<Env> stack, Procedure<Env> proc) {
    LockState lock;
    try {
      lock = ctx.admission().lockForRollback(proc);
    } catch (RuntimeException e) {
      retryLater(stack, proc, e);
      return false;
    }
    if (lock == LockState.LOCK_YIELD_WAIT) {
      ctx.scheduler().addBack(proc);
    }
    return lock == LockState.LOCK_ACQUIRED;
  }

  /** Undoes the newest step of the planned member and persists it; false if retried later. */
  private boolean rollbackStep(
      RootProcedureStack<Env> stack, UnwindPlanner.Next<Procedure<Env>> next)
      throws IOException, InterruptedException {
    Procedure<Env> proc = next.member();
    long start = System.nanoTime();
    try {
      proc.doRollbackStep(ctx.env());
    } catch (InterruptedException e) {
      throw e;
    } catch (Throwable t) {
      ctx.metrics().stepExecuted(proc.getType(), System.nanoTime() - start);
      retryLater(stack, proc, t);
      return false;
    }
    ctx.metrics().stepExecuted(proc.getType(), System.nanoTime() - start);
    if (!ctx.isRunning() || Thread.currentThread().isInterrupted()) {
      throw new InterruptedException("executor stopping; rollback step of " + proc);
    }
    proc.turn().resetRetryAttempts();
    stack.popEntry();
    proc.stored().removeNewestStackIndex();
    if (next.rolledBack()) {
      proc.transitionTo(ProcedureState.ROLLEDBACK);
    }
    if (next.persist()) {
      ctx.persist(proc);
    }
    return true;
  }

  private void releaseLockAfterRollbackStep(Procedure<Env> proc) {
    if (proc.stored().isLockHeld() && !proc.holdLock(ctx.env())) {
      completion.releaseHeldLock(proc);
    }
  }

  /** Every step is undone: mark the unfinished members ROLLEDBACK and complete the tree. */
  private void finish(Procedure<Env> root, RootProcedureStack<Env> stack) throws IOException {
    for (Procedure<Env> m : UnwindPlanner.membersToRollBack(stack.members(), facts)) {
      if (m.getState() != ProcedureState.FAILED) {
        m.transitionTo(ProcedureState.FAILED);
      }
      m.transitionTo(ProcedureState.ROLLEDBACK);
    }
    ctx.apply(completion.rootFinished(root, stack));
  }

  private void retryLater(RootProcedureStack<Env> stack, Procedure<Env> proc, Throwable t) {
    int attempt = proc.turn().nextRetryAttempt();
    long wait = ctx.config().retryBackoffMillis(attempt);
    long at = ctx.now() + wait;
    ctx.metrics().stepRetried(proc.getType());
    LOG.warn(
        "rollback of step {} of procedure {} failed (attempt {}); retrying in {} ms. "
            + "Fix the cause; the rollback repeats until it succeeds.",
        proc.getStepName(),
        proc.getProcId(),
        attempt,
        wait,
        t);
    stack.pauseRollback(at);
    ctx.admission().noteBackoff(proc, BlockedOn.TimerPurpose.RETRY_ROLLBACK, at);
    Procedure<Env> root = ctx.procedures().get(stack.rootProcId());
    ctx.timeouts().add(at, TimeoutQueue.Kind.RETRY_ROLLBACK, root);
  }
}
