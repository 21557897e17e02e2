package dev.baton.consensus;

/**
 * Where the leader's store writes spend their time, for benchmarks and metrics: waiting in the
 * group commit for their entry to be sent, the entry's way through Raft (append, replication,
 * commit, apply, reply), and the apply itself.
 */
public final class WriteTimings {
  private final LatencyHistogram queued = new LatencyHistogram();
  private final LatencyHistogram committed = new LatencyHistogram();
  private final LatencyHistogram applied = new LatencyHistogram();

  /** Per store write: from its arrival at the group commit until its entry was sent. */
  public LatencyHistogram queued() {
    return queued;
  }

  /** Per log entry of store writes: from sent to Raft until its reply (applied on this node). */
  public LatencyHistogram committed() {
    return committed;
  }

  /** Per log entry of store writes: the time the state machine spent applying it. */
  public LatencyHistogram applied() {
    return applied;
  }

  /** Forgets every recorded duration. */
  public void reset() {
    queued.reset();
    committed.reset();
    applied.reset();
  }
}
