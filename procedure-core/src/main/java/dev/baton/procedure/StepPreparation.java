package dev.baton.procedure;

/**
 * Before a step: takes the signals a polled procedure was queued with (a wake-up, an expired
 * timer), asks {@link StepDecider} what its turn does, and applies what the decision changes on the
 * procedure (the failure it records, the end of its wait, its return to RUNNABLE).
 */
final class StepPreparation<Env> {
  private final ExecutorContext<Env> ctx;
  private final ProcedureFacts<Procedure<Env>> facts = ProcedureFacts.procedures();

  StepPreparation(ExecutorContext<Env> ctx) {
    this.ctx = ctx;
  }

  /** Decides and applies the turn of {@code proc}; the caller acts on the returned action. */
  StepDecider.Turn prepare(Procedure<Env> proc) {
    boolean woken = proc.signals().takeWakeRequest();
    proc.signals().takeTimeoutFired();
    StepDecider.Turn turn =
        StepDecider.decide(proc, facts, woken, ctx.now(), p -> p.setTimeoutFailure(ctx.env()));
    if (turn.failure() != null) {
      proc.setFailureRecord(turn.failure());
    }
    if (turn.endWait()) {
      proc.stored().setWaitDeadline(0);
    }
    if (turn.cancelWaitTimer()) {
      ctx.timeouts().cancel(proc, TimeoutQueue.Kind.WAIT_EXPIRED); // ended before its deadline
    }
    if (turn.resume()) {
      proc.transitionTo(ProcedureState.RUNNABLE);
    }
    return turn;
  }
}
