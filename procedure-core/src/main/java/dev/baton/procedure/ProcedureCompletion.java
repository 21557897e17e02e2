package dev.baton.procedure;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens when a procedure reaches a terminal state: a finished child wakes its parent once
 * all siblings are done; a finished root moves its whole tree to the completed retainer, keeping
 * the root's and the members' final records (queryable, also after a recovery) until the root's
 * retention ends and the cleaner deletes them together. With retention zero the root's final write
 * deletes the tree's records instead; its infos stay queryable on this executor for {@link
 * ExecutorConfig#ZERO_RETENTION_GRACE}, then the cleaner only forgets them.
 */
final class ProcedureCompletion<Env> {
  private static final Logger LOG = LoggerFactory.getLogger(ProcedureCompletion.class);

  private final ExecutorContext<Env> ctx;

  ProcedureCompletion(ExecutorContext<Env> ctx) {
    this.ctx = ctx;
  }

  /**
   * A child reached SUCCESS: its record, and with it its parent's if that was the last pending
   * child; once durable the parent is queued and the child's locks and waiters released.
   */
  StepUpdate<Env> childSucceeded(Procedure<Env> child, RootProcedureStack<Env> stack) {
    Procedure<Env> parent = ctx.procedures().get(child.getParentProcId());
    if (parent == null) {
      throw new IllegalStateException("parent of " + child + " is not live");
    }
    boolean parentReady;
    synchronized (stack) {
      parentReady = parent.stored().childFinished();
      if (parentReady && parent.getState() == ProcedureState.WAITING) {
        parent.transitionTo(ProcedureState.RUNNABLE);
      } else {
        parentReady = false;
      }
    }
    boolean queueParent = parentReady;
    return new StepUpdate<>(
        parentReady ? List.of(child, parent) : List.of(child),
        List.of(),
        () -> {
          if (queueParent) {
            ctx.scheduler().addFront(parent);
          }
          releaseHeldLock(child);
          cleanup(child);
          reportFinished(child);
          ctx.notifyFinished(child.snapshot());
        });
  }

  /**
   * The root reached SUCCESS or ROLLEDBACK: its record, with every member whose stored record is
   * not its final one yet (members a rollback ended without a step to undo), in one batch, so a
   * root is never stored as finished while a member's stored record is live; once durable the tree
   * moves to the completed retainer and everything it held is released. With retention zero the
   * batch deletes the root and every member instead.
   */
  StepUpdate<Env> rootFinished(Procedure<Env> root, RootProcedureStack<Env> stack) {
    List<Procedure<Env>> others = new ArrayList<>();
    List<Procedure<Env>> writes = new ArrayList<>();
    writes.add(root);
    for (Procedure<Env> m : stack.members()) {
      if (m != root) {
        others.add(m);
        if (m.snapshot().state() != m.getState()) {
          writes.add(m);
        }
      }
    }
    if (ctx.config().completedRetention().isZero()) {
      // nothing is retained in the store: the final write deletes the tree, so the store never
      // holds finished records for the cleaner to delete later in bursts
      List<Procedure<Env>> tree = new ArrayList<>(others);
      tree.add(0, root);
      return new StepUpdate<>(List.of(), tree, () -> retire(root, stack, others, false));
    }
    return new StepUpdate<>(writes, List.of(), () -> retire(root, stack, others, true));
  }

  /**
   * Moves a finished tree to the completed retainer; {@code stored} says whether its final records
   * are in the store (the cleaner deletes them) or were deleted by the final write (retention zero:
   * the cleaner only forgets the infos kept in memory for the grace).
   */
  private void retire(
      Procedure<Env> root,
      RootProcedureStack<Env> stack,
      List<Procedure<Env>> others,
      boolean stored) {
    long expiresAt = ctx.now() + ctx.config().queryableAfterFinish().toMillis();
    List<ProcedureInfo> memberInfos = new ArrayList<>(others.size());
    for (Procedure<Env> m : others) {
      memberInfos.add(m.snapshot());
    }
    ctx.completed()
        .add(root.snapshot(), memberInfos, root.stored().getNonceKey(), expiresAt, stored);
    for (Procedure<Env> m : others) {
      ctx.procedures().remove(m.getProcId());
    }
    ctx.procedures().remove(root.getProcId());
    ctx.stacks().remove(root.getProcId());
    for (Procedure<Env> m : stack.members()) {
      if (m == root || !m.isSuccess()) { // succeeded children were cleaned up when they finished
        releaseHeldLock(m);
        cleanup(m);
        reportFinished(m);
      }
      ctx.notifyFinished(m.snapshot());
    }
    LOG.debug("procedure {} finished as {}", root.getProcId(), root.getState());
  }

  private void reportFinished(Procedure<Env> proc) {
    ctx.metrics().finished(proc.getType(), proc.getState(), ctx.now() - proc.getSubmittedTime());
  }

  void releaseHeldLock(Procedure<Env> proc) {
    if (proc.stored().isLockHeld()) {
      proc.stored().setLockHeld(false);
      try {
        proc.releaseLock(ctx.env());
      } catch (RuntimeException e) {
        LOG.error("releaseLock of {} threw; its lock may stay held", proc, e);
      }
    }
  }

  private void cleanup(Procedure<Env> proc) {
    ctx.admission().finished(proc); // whatever its releaseLock left, and any wait or slot
    ctx.timeouts().cancelAll(proc); // deadlines not passed yet no longer hold it
    try {
      proc.completionCleanup(ctx.env());
    } catch (RuntimeException e) {
      LOG.warn("completionCleanup of {} threw; ignored", proc, e);
    }
  }
}
