package dev.baton.procedure;

import java.util.function.Predicate;

/**
 * Decides what a polled procedure does on its turn, and what follows a step it ran. Pure: it reads
 * the procedure through {@link ProcedureFacts}, takes the time and the wake signal as inputs, and
 * asks the procedure's timeout hook ({@code setTimeoutFailure}) through a predicate only when a
 * deadline has passed. {@link StepRunner} carries out the answer (state changes, failure record,
 * timers, locks, the step itself, writes).
 */
final class StepDecider {
  private StepDecider() {}

  /** What a turn does. */
  enum Action {
    /** An operator's bypass: the procedure finishes as SUCCESS without further steps. */
    BYPASS,
    /** Nothing to run now: it is queued again by a wake-up, a timer, or its last child. */
    PARK,
    /**
     * The procedure failed (a recorded, forced, abort or timeout failure): its root stack fails.
     */
    FAIL,
    /** Run its next step. */
    RUN
  }

  /**
   * A turn's decision.
   *
   * @param action what the turn does
   * @param failure a failure to record before acting (forced, abort, timeout), or null
   * @param resume the procedure leaves WAITING or WAITING_TIMEOUT for RUNNABLE
   * @param endWait its wait deadline is cleared
   * @param cancelWaitTimer its wait ended early (woken): its expiry timer is cancelled
   */
  record Turn(
      Action action,
      ProcedureFailure failure,
      boolean resume,
      boolean endWait,
      boolean cancelWaitTimer) {
    static final Turn PARK = new Turn(Action.PARK, null, false, false, false);
    static final Turn RUN = new Turn(Action.RUN, null, false, false, false);
    static final Turn BYPASS = new Turn(Action.BYPASS, null, false, false, false);

    static Turn of(Action action, ProcedureFailure failure) {
      return failure == null && action == Action.RUN
          ? RUN
          : failure == null && action == Action.PARK
              ? PARK
              : new Turn(action, failure, false, false, false);
    }
  }

  /**
   * A bypass asked by an operator, decided before anything else: {@link Turn#BYPASS} once no child
   * is pending, {@link Turn#PARK} while children are (the last one's finish queues it again), null
   * if no bypass applies (none asked, or the procedure already failed).
   */
  static <P> Turn bypass(P proc, ProcedureFacts<P> facts) {
    if (!facts.bypassRequested(proc) || facts.hasFailure(proc)) {
      return null;
    }
    return facts.pendingChildren(proc) > 0 ? Turn.PARK : Turn.BYPASS;
  }

  /**
   * The turn of {@code proc}: turns why it was queued (a wake-up, an expired wait, an abort, a
   * force-fail, a procedure timeout) into what it does now.
   *
   * @param woken whether a wake-up was taken for this turn
   * @param now the executor clock, ms
   * @param timeoutFails the procedure's {@code setTimeoutFailure}: asked when its procedure timeout
   *     or its wait expired; true fails it
   */
  static <P> Turn decide(
      P proc, ProcedureFacts<P> facts, boolean woken, long now, Predicate<P> timeoutFails) {
    boolean failed = facts.hasFailure(proc);
    ProcedureFailure failure = null;
    if (!failed) {
      failure = facts.forcedFailure(proc);
      if (failure == null && facts.abortRequested(proc)) {
        failure =
            ProcedureFailure.aborted("abort", "procedure " + facts.procId(proc) + " was aborted");
      }
      long timeout = facts.timeout(proc);
      if (failure == null
          && timeout > 0
          && now >= facts.submittedTime(proc) + timeout
          && timeoutFails.test(proc)) {
        failure =
            ProcedureFailure.aborted("timeout", "procedure timeout of " + timeout + " ms expired");
      }
      failed = failure != null;
    }
    switch (facts.state(proc)) {
      case RUNNABLE:
        return Turn.of(failed ? Action.FAIL : Action.RUN, failure);
      case WAITING_TIMEOUT:
        if (failed) {
          return Turn.of(Action.FAIL, failure);
        }
        boolean expired = now >= facts.waitDeadline(proc);
        if (!woken && !expired) {
          return Turn.PARK;
        }
        if (expired && !woken && timeoutFails.test(proc)) {
          return Turn.of(
              Action.FAIL,
              ProcedureFailure.aborted(
                  "timeout", "wait of procedure " + facts.procId(proc) + " expired"));
        }
        return new Turn(Action.RUN, null, true, true, woken);
      case WAITING:
        if (failed) {
          return Turn.of(Action.FAIL, failure);
        }
        if (woken && facts.pendingChildren(proc) <= 0) {
          return new Turn(Action.RUN, null, true, false, false);
        }
        return Turn.PARK;
      default:
        return Turn.of(Action.PARK, failure);
    }
  }

  /** How a step ended, as the step runner saw it. */
  enum StepResult {
    /** It threw {@link ProcedureYieldException}. */
    YIELDED,
    /** It threw {@link ProcedureSuspendedException}. */
    SUSPENDED,
    /** It returned the procedure itself: another step follows. */
    AGAIN,
    /** It returned children. */
    CHILDREN,
    /** It returned nothing: the procedure is done. */
    DONE
  }

  /** What follows a step. */
  enum Outcome {
    /**
     * It failed in a state that cannot be rolled back: the same step runs again after a backoff.
     */
    RETRY,
    /** It failed: the procedure fails and its root stack unwinds. */
    FAIL,
    /** Persist, then to the back of the queue. */
    YIELD,
    /** Persist as WAITING until woken. */
    SUSPEND,
    /** Persist as WAITING_TIMEOUT until the requested wait expires or it is woken. */
    WAIT,
    /** Persist, then the next step (at the front of the queue, or the back if it yields). */
    CONTINUE,
    /** Persist it WAITING with its new children, then queue them. */
    SPAWN,
    /** Persist it SUCCESS. */
    SUCCEED
  }

  /**
   * The outcome of a step.
   *
   * @param failed whether the step left a failure
   * @param retryInsteadOfRollback whether the failed step's state is retried instead of undone
   * @param requestedWait the wait (ms) the step asked for, or a negative number for none
   */
  static Outcome afterStep(
      StepResult result, boolean failed, boolean retryInsteadOfRollback, long requestedWait) {
    if (failed) {
      return retryInsteadOfRollback ? Outcome.RETRY : Outcome.FAIL;
    }
    return switch (result) {
      case YIELDED -> Outcome.YIELD;
      case SUSPENDED -> Outcome.SUSPEND;
      case AGAIN -> requestedWait >= 0 ? Outcome.WAIT : Outcome.CONTINUE;
      case CHILDREN -> Outcome.SPAWN;
      case DONE -> Outcome.SUCCEED;
    };
  }
}
