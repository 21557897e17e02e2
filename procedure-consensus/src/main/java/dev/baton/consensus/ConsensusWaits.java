package dev.baton.consensus;

import java.time.Duration;

/**
 * The fixed waits and timeouts of procedure-consensus, by the part that waits: poll intervals,
 * retry pauses, request timeouts and deadlines. Not here: what a user sets, with its default, in
 * {@link RaftSettings} (election and request timeouts) and {@link ProcedureNode.Builder} (the
 * relaunch backoff and give-up, {@link LeadershipManager#DEFAULT_RELAUNCH_BACKOFF}).
 */
final class ConsensusWaits {
  // The leader's executor (LeadershipManager, LeadershipYield, RaftProcedureStore).

  /** How long shutdown waits for the lifecycle thread to stop the executor. */
  static final Duration EXECUTOR_SHUTDOWN_WAIT = Duration.ofSeconds(30);

  /** The longest pause between relaunches of an executor whose launch failed. */
  static final Duration MAX_RELAUNCH_BACKOFF = Duration.ofSeconds(2);

  /** How long one leadership transfer attempt may take (Ratis waits for the target's election). */
  static final Duration LEADERSHIP_TRANSFER_TIMEOUT = Duration.ofSeconds(3);

  /** How long a store write or an id reservation may wait for its entry to be applied. */
  static final Duration STORE_WRITE_TIMEOUT = Duration.ofSeconds(10);

  // Snapshots (SnapshotTaker).

  /** How long after a failed background snapshot write the next one may start. */
  static final Duration SNAPSHOT_RETRY_BACKOFF = Duration.ofSeconds(5);

  /** How long closing (or pausing for an installation) waits for the snapshot write in flight. */
  static final Duration SNAPSHOT_WRITE_WAIT = Duration.ofSeconds(30);

  // Start-up (LostStorageCheck).

  /** How long each other member gets to answer the lost-storage check; a silent one is skipped. */
  static final Duration PEER_ANSWER_TIMEOUT = Duration.ofSeconds(1);

  // The cluster client (ProcedureClient).

  /** Pause between two attempts of a request while Ratis looks for the leader. */
  static final Duration CLIENT_RETRY_PAUSE = Duration.ofMillis(50);

  /**
   * A linearizable read gets at least this many attempts within the request timeout: each attempt's
   * own timeout is the request timeout divided by this, but no shorter than {@link
   * #READ_ATTEMPT_MIN}.
   */
  static final int READ_ATTEMPTS = 4;

  /** The shortest time one read attempt gets. */
  static final Duration READ_ATTEMPT_MIN = Duration.ofMillis(250);

  /** The first and the largest pause of {@link ProcedureClient#await} polling a procedure. */
  static final Duration AWAIT_POLL_MIN = Duration.ofMillis(10);

  static final Duration AWAIT_POLL_MAX = Duration.ofMillis(500);

  private ConsensusWaits() {}
}
