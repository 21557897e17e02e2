package dev.baton.consensus;

import java.util.Objects;

/**
 * Who leads and in which term. Procedures send {@code term} with every side effect; a receiver that
 * has seen a higher term rejects the command (the fencing token).
 */
public record LeaderContext(String nodeId, long term) {
  public LeaderContext {
    Objects.requireNonNull(nodeId, "nodeId");
    if (nodeId.isBlank()) {
      throw new IllegalArgumentException("nodeId must not be blank");
    }
    if (term < 0) {
      throw new IllegalArgumentException("term must be >= 0, got " + term);
    }
  }

  /**
   * Whether a command stamped with this context may be accepted by someone who saw {@code seen}.
   */
  public boolean isCurrentFor(long seen) {
    return term >= seen;
  }
}
