package dev.baton.consensus;

import java.util.function.LongSupplier;

/**
 * The counters of one node's replicated state machine, read-only, for metrics and benchmarks
 * ({@link ProcedureNode#metrics}): what it applied, what it rejected as stale, where the leader's
 * store writes spent their time, what snapshots cost.
 */
public final class StateMachineMetrics {
  private final CommandApplier applier;
  private final LeaderChanges leaderChanges;
  private final WriteTimings writeTimings;
  private final SnapshotTaker snapshots;
  private final LongSupplier appliedIndex;
  private final LongSupplier snapshotIndex;

  StateMachineMetrics(
      CommandApplier applier,
      LeaderChanges leaderChanges,
      WriteTimings writeTimings,
      SnapshotTaker snapshots,
      LongSupplier appliedIndex,
      LongSupplier snapshotIndex) {
    this.applier = applier;
    this.leaderChanges = leaderChanges;
    this.writeTimings = writeTimings;
    this.snapshots = snapshots;
    this.appliedIndex = appliedIndex;
    this.snapshotIndex = snapshotIndex;
  }

  /** The index of the last log entry applied here (or loaded from a snapshot); -1 if none. */
  public long appliedIndex() {
    return appliedIndex.getAsLong();
  }

  /** The index of the newest snapshot this node holds; -1 if none. */
  public long snapshotIndex() {
    return snapshotIndex.getAsLong();
  }

  /**
   * Store writes and id reservations refused because their executor term (or, for store writes,
   * epoch) was stale.
   */
  public long rejectedWriteCount() {
    return applier.rejectedWriteCount();
  }

  /** Executor store batches applied (each one procedure-state update of the executor). */
  public long appliedBatchCount() {
    return applier.appliedBatchCount();
  }

  /** Log entries that carried applied store batches (group commit: far fewer than batches). */
  public long appliedWriteEntryCount() {
    return applier.appliedWriteEntryCount();
  }

  /**
   * Log entries that carried only submissions (group-committed like the store batches): those of a
   * node with no running executor, or sent through a client.
   */
  public long appliedSubmitEntryCount() {
    return applier.appliedSubmitEntryCount();
  }

  /** Submissions applied from store-write entries, which carry the leader's own submissions. */
  public long carriedSubmissionCount() {
    return applier.carriedSubmissionCount();
  }

  /** Leaders this node has heard of, one per term it learned one in ({@link LeaderChanges}). */
  public long leaderChanges() {
    return leaderChanges.count();
  }

  /** Where the store writes of this node (while it leads) spend their time. */
  public WriteTimings writeTimings() {
    return writeTimings;
  }

  /** How long each snapshot held Ratis' apply thread. */
  public LatencyHistogram snapshotApplyBlocking() {
    return snapshots.applyThreadBlocked();
  }

  /** How long each background snapshot write took (off the apply thread). */
  public LatencyHistogram snapshotWriteTimes() {
    return snapshots.writer().writeTimes();
  }
}
