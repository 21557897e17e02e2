package dev.baton.procedure;

/**
 * Before a step: turns why a polled procedure was queued (a wake-up, an expired wait, an abort, a
 * procedure timeout) into its state, and says whether it has a step to run now.
 */
final class StepPreparation<Env> {
  private final ExecutorContext<Env> ctx;

  StepPreparation(ExecutorContext<Env> ctx) {
    this.ctx = ctx;
  }

  /**
   * Turns the reason this procedure was queued into its state: an expired wait, a wake-up, an abort
   * or a timeout. Returns false if it has nothing to run now.
   */
  boolean prepare(Procedure<Env> proc) {
    boolean woken = proc.exec.takeWakeRequest();
    proc.exec.takeTimeoutFired();
    long now = ctx.now();
    ProcedureFailure forced = proc.exec.forcedFailure();
    if (forced != null && !proc.isFailed()) {
      proc.setFailureRecord(forced);
    }
    if (proc.isAbortRequested() && !proc.isFailed()) {
      proc.setFailureRecord(
          ProcedureFailure.aborted("abort", "procedure " + proc.getProcId() + " was aborted"));
    }
    if (!proc.isFailed() && proc.getTimeout() > 0) {
      long deadline = proc.getSubmittedTime() + proc.getTimeout();
      if (now >= deadline && proc.setTimeoutFailure(ctx.env)) {
        proc.setFailureRecord(
            ProcedureFailure.aborted(
                "timeout", "procedure timeout of " + proc.getTimeout() + " ms expired"));
      }
    }
    switch (proc.getState()) {
      case RUNNABLE:
        return true;
      case WAITING_TIMEOUT:
        if (proc.isFailed()) {
          return true;
        }
        boolean expired = now >= proc.exec.getWaitDeadline();
        if (!woken && !expired) {
          return false;
        }
        if (expired && !woken && proc.setTimeoutFailure(ctx.env)) {
          proc.setFailureRecord(
              ProcedureFailure.aborted(
                  "timeout", "wait of procedure " + proc.getProcId() + " expired"));
          return true;
        }
        proc.exec.setWaitDeadline(0);
        if (woken) {
          ctx.timeouts.cancel(proc, TimeoutQueue.Kind.WAIT_EXPIRED); // ended before its deadline
        }
        proc.transitionTo(ProcedureState.RUNNABLE);
        return true;
      case WAITING:
        if (proc.isFailed()) {
          return true;
        }
        if (woken && proc.exec.getPendingChildren() <= 0) {
          proc.transitionTo(ProcedureState.RUNNABLE);
          return true;
        }
        return false;
      default:
        return false;
    }
  }
}
