package dev.baton.procedure;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Why live procedures do not go on, read from the executor's parts: {@link BlockedOn} of one
 * procedure (its lock wait, limiter slot, retry backoff, children, timed wait, reported call, or
 * its place in the run queue), its text ({@link ProcedureInfo#waitReason()}), the chain of waits to
 * the root cause ({@link WaitChain}), and the count of blocked procedures by kind. Read-only; safe
 * from any thread (a view may mix moments of a procedure that moves on meanwhile).
 */
final class WaitAnalysis<Env> {
  private final ExecutorContext<Env> ctx;
  private final WorkerPool workers;

  WaitAnalysis(ExecutorContext<Env> ctx, WorkerPool workers) {
    this.ctx = ctx;
    this.workers = workers;
  }

  /** What {@code proc} waits on now; null if it runs without a reported call, or is finished. */
  BlockedOn blockedOn(Procedure<Env> proc) {
    if (proc.isFinished()) {
      return null;
    }
    AdmissionControl<Env> admission = ctx.admission();
    var lock = admission.locks().lockWait(proc);
    if (lock.isPresent()) {
      return new BlockedOn.Lock(lock.get());
    }
    var slot = admission.limiter().slotWait(proc);
    if (slot.isPresent()) {
      return new BlockedOn.ConcurrencyLimit(slot.get());
    }
    StepCalls.Call call = proc.turn().lastCall();
    BlockedOn.Timer backoff = admission.backoffOf(proc);
    if (backoff != null) {
      return call != null
              && !call.inFlight()
              && backoff.purpose() == BlockedOn.TimerPurpose.RETRY_STEP
          ? new BlockedOn.ExternalCall(
              call.target(),
              call.command(),
              call.attempt(),
              call.since(),
              call.lastError(),
              backoff.until())
          : backoff;
    }
    return switch (proc.getState()) {
      case WAITING -> children(proc);
      case WAITING_TIMEOUT ->
          new BlockedOn.Timer(BlockedOn.TimerPurpose.WAIT, proc.stored().getWaitDeadline(), null);
      case RUNNABLE, FAILED -> {
        if (!proc.turn().isTurnHeld()) {
          yield proc.getState() == ProcedureState.RUNNABLE ? queued() : null;
        }
        yield call != null && call.inFlight()
            ? new BlockedOn.ExternalCall(
                call.target(), call.command(), call.attempt(), call.since(), call.lastError(), 0)
            : null;
      }
      default -> null;
    };
  }

  private BlockedOn children(Procedure<Env> proc) {
    int pending = proc.stored().getPendingChildren();
    if (pending <= 0) {
      return new BlockedOn.Suspended();
    }
    List<Long> unfinished = new ArrayList<>();
    RootProcedureStack<Env> stack = ctx.stacks().get(proc.getRootProcId());
    if (stack != null) {
      for (Procedure<Env> m : stack.members()) {
        if (m.getParentProcId() == proc.getProcId() && !m.isFinished()) {
          unfinished.add(m.getProcId());
        }
      }
    }
    unfinished.sort(null);
    List<Long> listed =
        unfinished.size() > BlockedOn.MAX_LISTED
            ? unfinished.subList(0, BlockedOn.MAX_LISTED)
            : unfinished;
    return new BlockedOn.Children(listed, pending);
  }

  private BlockedOn queued() {
    return new BlockedOn.NoFreeWorker(
        workers.workerCount(), workers.activeCount(), ctx.scheduler().size());
  }

  /** The text of {@link #blockedOn} (with the procedure's own deadline), or null. */
  String waitReason(Procedure<Env> proc, BlockedOn blocker) {
    String reason = ctx.admission().locks().waitReason(proc).orElse(null);
    if (reason == null && blocker != null && !(blocker instanceof BlockedOn.NoFreeWorker)) {
      reason = blocker.describe(ctx.now());
    }
    if (reason != null && proc.getTimeout() > 0) {
      reason +=
          "; procedure times out at "
              + Instant.ofEpochMilli(proc.getSubmittedTime() + proc.getTimeout());
    }
    return reason;
  }

  /** {@code info} of a live procedure with what it waits on and why; others as they are. */
  ProcedureInfo annotate(ProcedureInfo info) {
    Procedure<Env> p = ctx.procedures().get(info.procId());
    if (p == null) {
      return info;
    }
    BlockedOn blocker = blockedOn(p);
    String reason = waitReason(p, blocker);
    return blocker == null && reason == null ? info : info.withBlockedOn(blocker, reason);
  }

  /** The chain of waits from {@code procId}; null if it is not live, retained or corrupt. */
  WaitChain chain(long procId) {
    ProcedureInfo asked = ctx.info(procId);
    if (asked == null) {
      return null;
    }
    List<WaitChain.Link> links = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    long id = procId;
    while (true) {
      if (links.size() == WaitChain.MAX_LINKS) {
        return new WaitChain(
            procId, links, false, "chain cut after " + WaitChain.MAX_LINKS + " procedures");
      }
      if (!seen.add(id)) {
        return new WaitChain(procId, links, true, cycleText(links, id));
      }
      Procedure<Env> p = ctx.procedures().get(id);
      if (p == null) {
        ProcedureInfo done = ctx.info(id);
        String what =
            done == null
                ? "procedure " + id + " is gone"
                : "procedure " + id + " finished " + done.state();
        links.add(
            new WaitChain.Link(
                id,
                done == null ? null : done.type(),
                done == null ? null : done.state(),
                done == null ? null : done.stepName(),
                null,
                what));
        return new WaitChain(procId, links, false, what);
      }
      BlockedOn blocker = blockedOn(p);
      String reason = blocker == null ? running(p) : blocker.describe(ctx.now());
      links.add(
          new WaitChain.Link(id, p.getType(), p.getState(), p.getStepName(), blocker, reason));
      if (blocker == null || blocker.waitsFor().isEmpty()) {
        return new WaitChain(procId, links, false, "procedure " + id + ": " + reason);
      }
      id = blocker.waitsFor().get(0);
    }
  }

  private static String running(Procedure<?> p) {
    if (p.isFinished()) {
      return "finished " + p.getState();
    }
    if (p.getState() == ProcedureState.FAILED) {
      return "rolling back";
    }
    return p.getStepName() == null ? "running" : "running step " + p.getStepName();
  }

  private static String cycleText(List<WaitChain.Link> links, long back) {
    StringBuilder sb = new StringBuilder("cycle: ");
    boolean in = false;
    for (WaitChain.Link l : links) {
      in |= l.procId() == back;
      if (in) {
        sb.append("procedure ").append(l.procId()).append(" waits for ");
      }
    }
    return sb.append("procedure ").append(back).toString();
  }

  /**
   * How many live procedures are blocked on each kind now (a kind with none is left out); running
   * procedures without a reported call are not counted.
   */
  Map<String, Integer> blockedCounts() {
    Map<String, Integer> out = new TreeMap<>();
    for (Procedure<Env> p : ctx.procedures().values()) {
      BlockedOn b = blockedOn(p);
      if (b != null) {
        out.merge(b.kind(), 1, Integer::sum);
      }
    }
    return out;
  }
}
