package dev.baton.consensus;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the leaders a node has heard of, one per Raft term in which it learned a leader (a new
 * leader, or the same one elected again in a later term), and logs each at INFO as {@code old ->
 * new} with the term, so an election nobody caused (a leader starved of CPU past the election
 * timeout) shows in the node's log and in {@link ProcedureNode#leaderChanges()}.
 *
 * <p>Ratis also reports "leader unknown" while an election runs; that is not a change here: the
 * count moves when the next leader is known. Thread-safe; Ratis calls it on its election threads.
 */
final class LeaderChanges {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderChanges.class);

  /** Shown as the previous leader before the first one is known. */
  static final String NONE = "none";

  private final AtomicLong count = new AtomicLong();
  private String leader = NONE;
  private long term = -1;

  /**
   * Ratis tells node {@code self} that {@code newLeader} (null: unknown, an election runs) leads at
   * {@code currentTerm}; returns whether that is a change: a known leader in a term later than the
   * last one counted.
   */
  boolean observed(String self, String newLeader, long currentTerm) {
    if (newLeader == null) {
      return false;
    }
    String old;
    long n;
    synchronized (this) {
      if (currentTerm <= term && newLeader.equals(leader)) {
        return false;
      }
      old = leader;
      leader = newLeader;
      term = Math.max(term, currentTerm);
      n = count.incrementAndGet();
    }
    LOG.info(
        "node {}: leader changed {} -> {} at term {} (leader change #{} seen here)",
        self,
        old,
        newLeader,
        currentTerm,
        n);
    return true;
  }

  /** Changes counted since start, the first known leader included. */
  long count() {
    return count.get();
  }
}
