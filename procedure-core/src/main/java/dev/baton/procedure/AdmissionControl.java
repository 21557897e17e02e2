package dev.baton.procedure;

import dev.baton.procedure.scheduler.LockCycle;
import dev.baton.procedure.scheduler.LockHost;
import dev.baton.procedure.scheduler.LockManager;
import dev.baton.procedure.scheduler.ProcedureLimiter;
import dev.baton.procedure.scheduler.Schedulable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What stands between a polled procedure and its step: its resource locks (through its own {@code
 * acquireLock}, usually backed by the executor's {@link LockManager}) and a slot of its type's
 * {@link ProcedureLimiter}. The executor's parts call it at fixed points:
 *
 * <ul>
 *   <li>{@link StepRunner}: {@link #acquireLock} before a step (unless the lock is held across
 *       steps), {@link #admitStep} after it, {@link #stepDone} when the step ended, {@link #failed}
 *       when a procedure fails, {@link #noteBackoff} when a step is retried later;
 *   <li>{@link RollbackRunner}: {@link #rollbackStarting} when a tree starts or resumes unwinding,
 *       {@link #lockForRollback} before each rollback step;
 *   <li>{@link ProcedureCompletion}: {@link #finished} for every procedure that reached its end;
 *   <li>{@link ProcedureRecovery}: {@link #retakeHeldLocks} before anything is scheduled.
 * </ul>
 *
 * It is also the {@link LockHost} of the lock manager: a procedure whose locks were granted while
 * it was parked is queued at the front of the scheduler, and the executor's {@link DeadlockPolicy}
 * says whether the manager breaks the wait-for cycles it finds.
 */
final class AdmissionControl<Env> implements LockHost {
  private static final Logger LOG = LoggerFactory.getLogger(AdmissionControl.class);

  private final ExecutorContext<Env> ctx;
  private final LockManager locks;
  private final ProcedureLimiter limiter;
  // Procedures waiting out a retry backoff: what is retried and until when.
  private final Map<Procedure<?>, BlockedOn.Timer> backoff = new ConcurrentHashMap<>();
  private final DeadlockPolicy deadlocks;

  AdmissionControl(
      ExecutorContext<Env> ctx,
      LockManager locks,
      ProcedureLimiter limiter,
      DeadlockPolicy deadlocks) {
    this.ctx = ctx;
    this.locks = locks;
    this.limiter = limiter;
    this.deadlocks = deadlocks;
  }

  /** The resource locks procedures take before a step. */
  LockManager locks() {
    return locks;
  }

  /** The per-type caps on running procedures. */
  ProcedureLimiter limiter() {
    return limiter;
  }

  /** The executor starts: the lock manager serves it, with an empty table. */
  void attach() {
    locks.attach(this);
  }

  void detach() {
    locks.detach(this);
  }

  // ---------------------------------------------------------------- LockHost

  @Override
  public void wake(Schedulable proc) {
    // the wait is over
    ctx.timeouts().cancel(procedureOf(proc), TimeoutQueue.Kind.LOCK_WAIT_EXPIRED);
    if (ctx.isRunning()) {
      ctx.scheduler().addFront(proc);
    }
  }

  @Override
  public boolean isLive(Schedulable proc) {
    return ctx.procedures().get(proc.getProcId()) == proc;
  }

  @Override
  public Procedure<Env> parentOf(Schedulable proc) {
    Procedure<?> p = procedureOf(proc);
    return p.hasParent() ? ctx.procedures().get(p.getParentProcId()) : null;
  }

  @Override
  public long now() {
    return ctx.now();
  }

  @Override
  public void scheduleWaitTimeout(Schedulable proc, long deadline) {
    ctx.timeouts().add(deadline, TimeoutQueue.Kind.LOCK_WAIT_EXPIRED, procedureOf(proc));
  }

  /**
   * The procedure the lock manager or the limiter hands back. Both hold only procedures of this
   * executor: the limiter is given nothing else, and the manager keeps only what {@link #isLive}
   * accepted (an object in this executor's procedure table).
   */
  private static Procedure<?> procedureOf(Schedulable proc) {
    return (Procedure<?>) proc;
  }

  @Override
  public boolean breaksDeadlocks() {
    return deadlocks.breakCycles();
  }

  /** A procedure whose tree rolls back parks only for a rollback step: failing it ends nothing. */
  @Override
  public boolean mayFail(Schedulable proc) {
    Procedure<?> p = procedureOf(proc);
    RootProcedureStack<?> stack = ctx.stacks().get(p.getRootProcId());
    return !p.isFailed() && (stack == null || !stack.isFailed());
  }

  @Override
  public void deadlockFound(LockCycle cycle) {
    ctx.metrics().deadlockFound(cycle.links().size());
    for (Consumer<LockCycle> l : deadlocks.listeners()) {
      try {
        l.accept(cycle);
      } catch (RuntimeException e) {
        LOG.error("a deadlock listener threw; the executor goes on", e);
      }
    }
  }

  /** A lock-wait deadline passed: fail the wait and queue the procedure if it still waited. */
  void lockWaitExpired(Procedure<?> proc) {
    if (locks.expireWait(proc)) {
      wake(proc);
    }
  }

  // ---------------------------------------------------------------- steps

  /**
   * Calls the procedure's {@code acquireLock}. A lock not granted frees the limiter slot reserved
   * for the procedure, if any: a procedure waiting for a lock holds no slot.
   *
   * @throws RuntimeException what {@code acquireLock} threw (e.g. a lock wait timeout)
   */
  LockState acquireLock(Procedure<Env> proc) {
    backoff.remove(proc);
    LockState state;
    try {
      state = proc.acquireLock(ctx.env());
    } catch (RuntimeException e) {
      giveBackSlot(proc);
      throw e;
    }
    if (state != LockState.LOCK_ACQUIRED) {
      giveBackSlot(proc);
    }
    return state;
  }

  /** Takes a limiter slot for the step about to run; false if the procedure must wait for one. */
  boolean admitStep(Procedure<Env> proc) {
    backoff.remove(proc);
    return limiter.tryAcquire(proc);
  }

  /** The step ended (whatever its outcome): its slot goes to the next waiter of its type. */
  void stepDone(Procedure<Env> proc) {
    giveBackSlot(proc);
  }

  /**
   * The procedure failed (its tree will roll back): it stops waiting for locks and slots, and gives
   * up locks handed to it while it was parked. Locks it holds across steps stay held for the
   * rollback.
   */
  void failed(Procedure<Env> proc) {
    if (!proc.stored().isLockHeld()) {
      locks.release(proc);
    }
    giveBackSlot(proc);
  }

  /** The procedure reached its end: whatever it still holds or waits for is released. */
  void finished(Procedure<Env> proc) {
    locks.release(proc);
    giveBackSlot(proc);
    backoff.remove(proc);
  }

  void noteBackoff(Procedure<Env> proc, BlockedOn.TimerPurpose purpose, long until) {
    backoff.put(proc, new BlockedOn.Timer(purpose, until, proc.getStepName()));
  }

  /** The retry backoff {@code proc} waits out, or null. */
  BlockedOn.Timer backoffOf(Procedure<?> proc) {
    return backoff.get(proc);
  }

  private void giveBackSlot(Procedure<?> proc) {
    Schedulable next = limiter.release(proc);
    if (next != null) {
      wake(next);
    }
  }

  // ---------------------------------------------------------------- rollback

  /**
   * A tree starts (or resumes) unwinding; no member runs. Members other than the next one to roll
   * back give up locks handed to them while they were parked and leave every wait queue, so the
   * rollback of another member never waits for them; locks held across steps stay held. A rollback
   * needs no limiter slot.
   */
  void rollbackStarting(RootProcedureStack<Env> stack) {
    Procedure<Env> next = stack.newestEntry();
    for (Procedure<Env> m : stack.members()) {
      if (m != next && !m.stored().isLockHeld()) {
        locks.release(m);
      }
      giveBackSlot(m);
      backoff.remove(m);
    }
  }

  /** Takes the lock of {@code proc} for one rollback step, unless it is held across steps. */
  LockState lockForRollback(Procedure<Env> proc) {
    if (proc.stored().isLockHeld()) {
      return LockState.LOCK_ACQUIRED;
    }
    LockState state = proc.acquireLock(ctx.env());
    if (state == LockState.LOCK_ACQUIRED) {
      proc.stored().setLockHeld(true);
    }
    return state;
  }

  // ---------------------------------------------------------------- recovery

  /**
   * Locks held across steps are taken again, ancestors first, before anything is scheduled; the
   * table is empty, so this succeeds for every procedure that held its locks when the previous
   * executor stopped. A recorded lock flag of a procedure that does not hold its lock across steps
   * is stale (the flag is persisted with the step, the lock released right after) and is cleared:
   * that procedure takes its lock before its next step like any other.
   */
  void retakeHeldLocks(List<Procedure<Env>> live) {
    List<Procedure<Env>> holders = new ArrayList<>();
    for (Procedure<Env> p : live) {
      if (p.stored().isLockHeld() && !p.isFinished()) {
        if (p.holdLock(ctx.env())) {
          holders.add(p);
        } else {
          p.stored().setLockHeld(false);
        }
      }
    }
    holders.sort(Comparator.comparingLong(Procedure::getProcId)); // a parent's id is lower
    for (Procedure<Env> p : holders) {
      LockState state;
      try {
        state = p.acquireLock(ctx.env());
      } catch (RuntimeException e) {
        LOG.error("procedure {} could not re-take its lock: acquireLock threw", p.getProcId(), e);
        state = LockState.LOCK_YIELD_WAIT;
      }
      if (state != LockState.LOCK_ACQUIRED) {
        LOG.error(
            "procedure {} held its lock before the restart but could not take it again ({}); "
                + "it will wait for the lock like a new procedure. {}",
            p.getProcId(),
            state,
            locks.waitReason(p).orElse(""));
        p.stored().setLockHeld(false);
      }
    }
  }

  /**
   * The kind of what {@code proc} waits on, as metrics count it, checked in the order {@link
   * WaitAnalysis#blockedOn} checks, without building its {@link BlockedOn}; null if the procedure
   * does not wait.
   */
  WaitCategory waitCategory(Procedure<Env> proc) {
    if (proc.isFinished()) {
      return null;
    }
    if (locks.isWaiting(proc)) {
      return WaitCategory.LOCK;
    }
    if (limiter.isWaiting(proc)) {
      return WaitCategory.LIMIT;
    }
    if (backoff.containsKey(proc)) {
      return WaitCategory.BACKOFF;
    }
    return switch (proc.getState()) {
      case WAITING ->
          proc.stored().getPendingChildren() > 0 ? WaitCategory.CHILDREN : WaitCategory.SUSPENDED;
      case WAITING_TIMEOUT -> WaitCategory.TIMER;
      default -> null;
    };
  }
}
