package dev.baton.consensus;

/**
 * What the {@link LeaderRoleMachine} asks its glue ({@link LeadershipManager}) to do. Each action
 * names the term (and, for one executor incarnation, its number) it is for; the outcome comes back
 * as a {@link LeaderEvent} naming the same.
 */
sealed interface LeaderAction {

  /** The node's role is now {@code role}: tell the role listeners. */
  record ChangeRole(NodeRole role) implements LeaderAction {}

  /** A term begins: keep a place for its executor and for the submissions it must adopt. */
  record BeginTerm(long term) implements LeaderAction {}

  /**
   * Stop everything of {@code term} now: fail its store's writes, fail what waits for its executor,
   * stop its executor (off Ratis' threads).
   */
  record Abandon(long term, String why) implements LeaderAction {}

  /**
   * Start a rebuild: on the lifecycle thread, ask Ratis whether this node still leads {@code term}
   * (answered by {@link LeaderEvent.LeadershipChecked}).
   */
  record Launch(long term) implements LeaderAction {}

  /**
   * Append a fence of {@code term} and wait until it is applied ({@link LeaderEvent.FenceApplied}).
   */
  record AppendFence(long term, long incarnation) implements LeaderAction {}

  /**
   * Build the store (term, epoch) and the executor of the incarnation ({@link LeaderEvent.Built}).
   */
  record Build(long term, long incarnation, long epoch) implements LeaderAction {}

  /**
   * Attach the built incarnation to its term and start its executor ({@link LeaderEvent.Started}).
   */
  record Start(long term, long incarnation) implements LeaderAction {}

  /**
   * The incarnation runs: adopt the submissions applied meanwhile, record the recovery (which began
   * at {@code recoveringSince}), release what waited for a running executor.
   */
  record Running(long term, long incarnation, long recoveringSince) implements LeaderAction {}

  /**
   * Detach the failed incarnation from its term; {@code newRecovery}: it had run, so what waits for
   * a running executor now waits for the next one.
   */
  record Release(long term, long incarnation, boolean newRecovery) implements LeaderAction {}

  /** Stop an executor that started after its term ended. */
  record StopExecutor(long term, long incarnation) implements LeaderAction {}

  /**
   * Launch the term's next incarnation after {@code delayMillis} ({@link LeaderEvent.RelaunchDue});
   * {@code attempt} counts the launches of the current failure streak.
   */
  record ScheduleRelaunch(long term, long delayMillis, int attempt, Throwable cause)
      implements LeaderAction {}

  /**
   * Ask Ratis to hand leadership to another node ({@link LeaderEvent.YieldDone}); {@code term} is 0
   * when the node was elected but no term of it is ready.
   */
  record YieldLeadership(long term, String why) implements LeaderAction {}

  /**
   * Look again, after {@code delayMillis}, at an elected node Ratis has not readied ({@link
   * LeaderEvent.ReadyCheck} of {@code watch}).
   */
  record ScheduleReadyCheck(long watch, long delayMillis) implements LeaderAction {}
}
