package dev.baton.consensus;

/**
 * What happens to a node's leadership, as the {@link LeaderRoleMachine} hears it: Ratis' callbacks
 * and the outcomes of the actions the machine asked for. Times are wall-clock milliseconds read by
 * whoever feeds the event; the machine reads no clock.
 */
sealed interface LeaderEvent {

  /**
   * Ratis elected this node (not yet ready: entries of earlier terms may still be unapplied), at
   * {@code now}, when it had applied the log up to {@code appliedIndex}.
   */
  record BecameLeader(long now, long appliedIndex) implements LeaderEvent {}

  /**
   * The pause asked for by {@link LeaderAction.ScheduleReadyCheck} of {@code watch} is over: the
   * node has applied the log up to {@code appliedIndex} at {@code now}.
   */
  record ReadyCheck(long watch, long appliedIndex, long now) implements LeaderEvent {}

  /** Ratis says this node is the ready leader of {@code term}: every earlier entry is applied. */
  record LeaderReady(long term, long now) implements LeaderEvent {}

  /** Leadership ended: another node leads, Ratis stepped this one down, or its server closes. */
  record SteppedDown(String why) implements LeaderEvent {}

  /**
   * The answer to {@link LeaderAction.Launch}: whether Ratis still says this node leads {@code
   * term}.
   */
  record LeadershipChecked(long term, boolean leader) implements LeaderEvent {}

  /** The fence of incarnation {@code incarnation} was applied and opened {@code epoch}. */
  record FenceApplied(long term, long incarnation, long epoch) implements LeaderEvent {}

  /** The store and executor of the incarnation are built (not started). */
  record Built(long term, long incarnation, long epoch) implements LeaderEvent {}

  /** The incarnation's executor started: it runs. */
  record Started(long term, long incarnation, long now) implements LeaderEvent {}

  /**
   * The incarnation failed: its fence or build failed, its executor did not start, or it stopped by
   * itself later (a store write failed).
   */
  record Failed(long term, long incarnation, Throwable cause, long now) implements LeaderEvent {}

  /** The pause asked for by {@link LeaderAction.ScheduleRelaunch} is over. */
  record RelaunchDue(long term) implements LeaderEvent {}

  /** A request of {@link LeaderAction.YieldLeadership} finished, accepted or not. */
  record YieldDone(long term) implements LeaderEvent {}

  /** The node closes: no term starts any more. */
  record Shutdown() implements LeaderEvent {}
}
