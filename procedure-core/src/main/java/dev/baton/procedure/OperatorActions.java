package dev.baton.procedure;

import dev.baton.procedure.scheduler.LockInfo;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator's {@link OperatorAction}s on live procedures: what each would change ({@link #plan},
 * the dry run) and carrying it out ({@link #act}). Carrying out only marks the procedures and
 * queues them: the worker that runs one next fails it (force-fail, as an abort would, whether or
 * not it agrees), finishes it without a step (bypass), or runs it at once (retry-now).
 */
final class OperatorActions<Env> {
  private static final Logger LOG = LoggerFactory.getLogger(OperatorActions.class);

  /** The failure source a force-fail records. */
  static final String FORCE_FAIL_SOURCE = "force-fail";

  /** What an abort would do, for {@link #failurePlan}. */
  private static final String ABORT_EFFECT =
      "procedure %d is asked to abort: if it agrees in its current step, it fails at its next turn"
          + " and the tree of root %d rolls back; otherwise nothing changes";

  /** What a force-fail would do, for {@link #failurePlan}. */
  private static final String FORCE_FAIL_EFFECT =
      "procedure %d fails at its next turn and the tree of root %d rolls back; locks stay held"
          + " until the rollback ends";

  private final ExecutorContext<Env> ctx;

  OperatorActions(ExecutorContext<Env> ctx) {
    this.ctx = ctx;
  }

  /** What {@code action} on {@code procId} would change now, or why it is refused. */
  ActionPlan plan(OperatorAction action, long procId, boolean recursive) {
    Procedure<Env> proc = ctx.procedures().get(procId);
    if (proc == null || proc.isFinished()) {
      ProcedureInfo info = ctx.info(procId);
      return ActionPlan.refused(
          action,
          procId,
          info == null
              ? "procedure " + procId + " is not known to the leader's executor"
              : "procedure "
                  + procId
                  + " is finished ("
                  + info.state()
                  + "): nothing to "
                  + action.label());
    }
    RootProcedureStack<Env> stack = ctx.stacks().get(proc.getRootProcId());
    boolean treeFailed = proc.isFailed() || (stack != null && stack.isFailed());
    return switch (action) {
      case ABORT ->
          treeFailed ? rollingBack(action, proc) : failurePlan(action, proc, ABORT_EFFECT);
      case FORCE_FAIL ->
          treeFailed ? rollingBack(action, proc) : failurePlan(action, proc, FORCE_FAIL_EFFECT);
      case BYPASS -> treeFailed ? rollingBack(action, proc) : bypassPlan(proc, recursive);
      case RETRY_NOW -> retryPlan(proc, stack);
    };
  }

  /**
   * Carries out {@code action} when {@link #plan} allows it; answers the plan either way.
   *
   * @param reason the operator's reason, recorded in a force-fail's failure
   */
  ActionPlan act(OperatorAction action, long procId, boolean recursive, String reason) {
    ActionPlan plan = plan(action, procId, recursive);
    if (!plan.allowed()) {
      return plan;
    }
    Procedure<Env> proc = ctx.procedures().get(procId);
    switch (action) {
      case ABORT -> {
        if (!abort(proc)) {
          return ActionPlan.refused(
              action,
              procId,
              "procedure "
                  + procId
                  + " refuses abort in its current step ("
                  + proc.getState()
                  + ")");
        }
      }
      case FORCE_FAIL -> {
        proc.signals().forceFailure(ProcedureFailure.aborted(FORCE_FAIL_SOURCE, reason));
        queue(proc);
      }
      case BYPASS -> {
        // Every member is marked before any is queued: a child bypassed at once wakes its parent,
        // which must already see its own bypass rather than run its next step.
        List<Procedure<Env>> bypassed = new ArrayList<>();
        for (ActionPlan.StateChange c : plan.states()) {
          Procedure<Env> p = ctx.procedures().get(c.procId());
          if (p != null) {
            p.signals().requestBypass();
            bypassed.add(p);
          }
        }
        bypassed.forEach(this::queue);
      }
      case RETRY_NOW -> retryNow(proc);
    }
    LOG.warn("operator {} of procedure {}: {} ({})", action.label(), procId, plan.effect(), reason);
    return plan;
  }

  /**
   * Asks a live procedure to abort. If it agrees ({@link Procedure#abort}), it fails with an abort
   * cause at its next turn and its tree rolls back.
   *
   * @return false if the procedure is unknown, finished, failed, or refused
   */
  boolean abort(Procedure<Env> proc) {
    if (proc == null || proc.isFinished() || proc.isFailed()) {
      return false;
    }
    if (!proc.abort(ctx.env())) {
      return false;
    }
    proc.setAbortRequested(true);
    queue(proc);
    return true;
  }

  private void queue(Procedure<Env> proc) {
    proc.signals().requestWake();
    ctx.scheduler().addFront(proc);
  }

  private void retryNow(Procedure<Env> proc) {
    RootProcedureStack<Env> stack = ctx.stacks().get(proc.getRootProcId());
    Procedure<Env> root = ctx.procedures().get(proc.getRootProcId());
    if (stack != null && root != null && stack.endRollbackPause()) {
      ctx.timeouts().cancel(root, TimeoutQueue.Kind.RETRY_ROLLBACK);
      ctx.scheduler().addFront(root);
    } else if (ctx.admission().backoffOf(proc) != null) {
      ctx.timeouts().cancel(proc, TimeoutQueue.Kind.RETRY_STEP);
      ctx.scheduler().addFront(proc);
    } else {
      queue(proc); // a timed wait: the wake-up ends it (StepPreparation)
    }
  }

  private ActionPlan rollingBack(OperatorAction action, Procedure<Env> proc) {
    return ActionPlan.refused(
        action,
        proc.getProcId(),
        "procedure "
            + proc.getProcId()
            + " has failed and its tree (root "
            + proc.getRootProcId()
            + ") rolls back: only retry-now applies to a rollback");
  }

  /**
   * The plan of an action that fails {@code proc}: it leaves FAILED, and the rollback reaches the
   * other live procedures of its tree.
   *
   * @param effect its effect in words, with {@code %d} for the procedure's id, then its root's
   */
  private ActionPlan failurePlan(OperatorAction action, Procedure<Env> proc, String effect) {
    List<Long> affected = new ArrayList<>();
    for (Procedure<Env> m : liveTree(ctx.procedures().get(proc.getRootProcId()))) {
      if (m != proc) {
        affected.add(m.getProcId());
      }
    }
    return new ActionPlan(
        action,
        proc.getProcId(),
        null,
        List.of(change(proc, ProcedureState.FAILED)),
        List.of(),
        affected,
        String.format(Locale.ROOT, effect, proc.getProcId(), proc.getRootProcId()));
  }

  private ActionPlan bypassPlan(Procedure<Env> proc, boolean recursive) {
    List<Procedure<Env>> tree = liveTree(proc);
    List<Long> children = new ArrayList<>();
    for (Procedure<Env> m : tree) {
      if (m != proc) {
        children.add(m.getProcId());
      }
    }
    if (!children.isEmpty() && !recursive) {
      return ActionPlan.refused(
          OperatorAction.BYPASS,
          proc.getProcId(),
          "procedure "
              + proc.getProcId()
              + " has unfinished children "
              + children
              + ": bypass them first, or bypass recursively");
    }
    List<ActionPlan.StateChange> states = new ArrayList<>();
    Set<Long> ids = new LinkedHashSet<>();
    for (Procedure<Env> m : tree) {
      states.add(change(m, ProcedureState.SUCCESS));
      ids.add(m.getProcId());
    }
    String running =
        proc.turn().isTurnHeld()
            ? "; it runs a step now, which ends first (its outcome is kept)"
            : "";
    return new ActionPlan(
        OperatorAction.BYPASS,
        proc.getProcId(),
        null,
        states,
        locksOf(ids),
        children,
        (children.isEmpty() ? "" : children.size() + " children and then ")
            + "procedure "
            + proc.getProcId()
            + " finish as SUCCESS without their remaining steps"
            + running);
  }

  private ActionPlan retryPlan(Procedure<Env> proc, RootProcedureStack<Env> stack) {
    BlockedOn.Timer backoff = ctx.admission().backoffOf(proc);
    String effect;
    List<ActionPlan.StateChange> states = List.of();
    if (backoff != null) {
      effect =
          (backoff.purpose() == BlockedOn.TimerPurpose.RETRY_ROLLBACK ? "the rollback" : "step")
              + " of procedure "
              + proc.getProcId()
              + " is retried now instead of after its backoff until "
              + backoff.until();
    } else if (proc.getState() == ProcedureState.WAITING_TIMEOUT && !proc.isFailed()) {
      effect =
          "the wait of procedure "
              + proc.getProcId()
              + " until "
              + proc.stored().getWaitDeadline()
              + " ends now";
      states = List.of(change(proc, ProcedureState.RUNNABLE));
    } else {
      return ActionPlan.refused(
          OperatorAction.RETRY_NOW,
          proc.getProcId(),
          "procedure "
              + proc.getProcId()
              + " ("
              + proc.getState()
              + ") waits on neither a timer nor a retry backoff: nothing to retry now");
    }
    return new ActionPlan(
        OperatorAction.RETRY_NOW, proc.getProcId(), null, states, List.of(), List.of(), effect);
  }

  private static ActionPlan.StateChange change(Procedure<?> p, ProcedureState to) {
    return new ActionPlan.StateChange(p.getProcId(), p.getType(), p.getState(), to);
  }

  /** {@code top} and its live descendants, descendants before their parents (deepest first). */
  private List<Procedure<Env>> liveTree(Procedure<Env> top) {
    List<Procedure<Env>> out = new ArrayList<>();
    if (top == null) {
      return out;
    }
    RootProcedureStack<Env> stack = ctx.stacks().get(top.getRootProcId());
    if (stack != null) {
      for (Procedure<Env> m : stack.members()) {
        if (m != top && !m.isFinished() && descends(m, top.getProcId())) {
          out.add(m);
        }
      }
    }
    out.sort((a, b) -> Long.compare(b.getProcId(), a.getProcId()));
    out.add(top);
    return out;
  }

  private boolean descends(Procedure<Env> m, long ancestor) {
    long parent = m.getParentProcId();
    while (parent > 0) {
      if (parent == ancestor) {
        return true;
      }
      Procedure<Env> p = ctx.procedures().get(parent);
      parent = p == null ? 0 : p.getParentProcId();
    }
    return false;
  }

  /** The locks the procedures {@code ids} hold or wait for. */
  private List<String> locksOf(Set<Long> ids) {
    List<String> out = new ArrayList<>();
    for (LockInfo lock : ctx.admission().locks().snapshot()) {
      for (LockInfo.Holder h : lock.holders()) {
        if (ids.contains(h.procId())) {
          out.add(lock.resource());
        }
      }
      for (LockInfo.Waiter w : lock.waiters()) {
        if (ids.contains(w.procId())) {
          out.add(lock.resource() + " (waiting)");
        }
      }
    }
    return out;
  }
}
