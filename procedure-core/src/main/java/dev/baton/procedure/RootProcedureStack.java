package dev.baton.procedure;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The shared state of a root procedure and all its descendants: how many members are on a worker
 * now, whether any failed, and the rollback stack: one entry per executed step of any member, in
 * execution order. Once the stack is failed and nothing runs, it is unwound from the top. Pure
 * bookkeeping: no threads, no I/O; every method is synchronized because members run on different
 * workers.
 */
final class RootProcedureStack<Env> {
  /** Room for this many rollback entries before the list first grows. */
  private static final int INITIAL_ENTRIES = 2;

  private final long rootProcId;
  // Sized for what most roots are, one member with a few steps (a list's default first array holds
  // ten); a new leader builds one stack per live root at once.
  private final List<Procedure<Env>> members = new ArrayList<>(1);
  private final List<Procedure<Env>> entries = new ArrayList<>(INITIAL_ENTRIES);
  private int nextIndex;
  private int running;
  private boolean failed;
  private boolean rollingBack;
  private long rollbackNotBefore;
  private ProcedureFailure firstFailure;

  RootProcedureStack(long rootProcId) {
    this.rootProcId = rootProcId;
  }

  long rootProcId() {
    return rootProcId;
  }

  /** A member is about to run a step; false (and nothing counted) if the stack has failed. */
  synchronized boolean acquire() {
    if (failed) {
      return false;
    }
    running++;
    return true;
  }

  /** A member finished running a step. */
  synchronized void release() {
    if (running <= 0) {
      throw new IllegalStateException("root stack " + rootProcId + " released more than acquired");
    }
    running--;
  }

  /** Marks the stack FAILED; the first failure named is kept as the root's cause. */
  synchronized void setFailed(Procedure<Env> proc, ProcedureFailure failure) {
    failed = true;
    if (firstFailure == null && failure != null) {
      firstFailure =
          proc.getProcId() == rootProcId
              ? failure
              : new ProcedureFailure(
                  failure.source(),
                  "child procedure " + proc.getProcId() + " failed: " + failure.message(),
                  failure.causeType(),
                  failure.aborted());
    }
  }

  synchronized boolean isFailed() {
    return failed;
  }

  synchronized ProcedureFailure firstFailure() {
    return firstFailure;
  }

  synchronized int running() {
    return running;
  }

  /**
   * Claims the unwind: true only if the stack failed, no member runs, nobody else unwinds, and no
   * retry backoff is pending at {@code now}.
   */
  synchronized boolean tryStartRollback(long now) {
    if (!failed || running > 0 || rollingBack || now < rollbackNotBefore) {
      return false;
    }
    rollingBack = true;
    return true;
  }

  /** Ends an unwind that could not finish; it may be retried from {@code notBefore}. */
  synchronized void pauseRollback(long notBefore) {
    rollingBack = false;
    rollbackNotBefore = notBefore;
  }

  /** Lets a paused unwind start again at once (an operator's retry-now); true if it was paused. */
  synchronized boolean endRollbackPause() {
    boolean paused = failed && !rollingBack && rollbackNotBefore > 0;
    rollbackNotBefore = 0;
    return paused;
  }

  synchronized boolean isRollingBack() {
    return rollingBack;
  }

  synchronized void addMember(Procedure<Env> proc) {
    members.add(proc);
  }

  synchronized List<Procedure<Env>> members() {
    return Collections.unmodifiableList(new ArrayList<>(members));
  }

  /** Records an executed step of {@code proc} as the newest entry. */
  synchronized void addEntry(Procedure<Env> proc) {
    proc.stored().addStackIndex(nextIndex++);
    entries.add(proc);
  }

  /** The newest entry, or null when the stack is empty. */
  synchronized Procedure<Env> newestEntry() {
    return entries.isEmpty() ? null : entries.get(entries.size() - 1);
  }

  /** Drops the newest entry (its step was rolled back, or its member succeeded). */
  synchronized void popEntry() {
    entries.remove(entries.size() - 1);
  }

  synchronized int entryCount() {
    return entries.size();
  }

  /**
   * Rebuilds the entries from the stored stack indexes of the members, as {@link
   * RecoveryPlanner#entries} orders them.
   */
  synchronized void rebuildEntries() {
    RecoveryPlanner.Entries<Procedure<Env>> rebuilt =
        RecoveryPlanner.entries(rootProcId, members, ProcedureFacts.procedures());
    entries.clear();
    entries.addAll(rebuilt.entries());
    nextIndex = rebuilt.nextIndex();
  }
}
