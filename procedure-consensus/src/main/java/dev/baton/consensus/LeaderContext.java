package dev.baton.consensus;

import java.util.Objects;

/**
 * Who leads and in which term. Procedures send {@code term} with every side effect; a receiver that
 * has seen a higher term rejects the command (the fencing token).
 *
 * <p>{@code epoch} names the executor incarnation within the term: 0 for the first; a node whose
 * executor stopped by itself while it stayed leader runs the next one under a new epoch. The
 * replicated state machine refuses metadata writes (like store writes) of a replaced epoch, so a
 * step of the stopped executor that is still running cannot change the metadata after its successor
 * read it. Receivers outside the cluster only compare terms.
 */
public record LeaderContext(String nodeId, long term, long epoch) {
  public LeaderContext {
    Objects.requireNonNull(nodeId, "nodeId");
    if (nodeId.isBlank()) {
      throw new IllegalArgumentException("nodeId must not be blank");
    }
    if (term < 0) {
      throw new IllegalArgumentException("term must be >= 0, got " + term);
    }
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch must be >= 0, got " + epoch);
    }
  }

  /** The context of the first executor incarnation of {@code term}. */
  public LeaderContext(String nodeId, long term) {
    this(nodeId, term, 0);
  }

  /**
   * Whether a command stamped with this context may be accepted by someone who saw {@code seen}.
   */
  public boolean isCurrentFor(long seen) {
    return term >= seen;
  }
}
