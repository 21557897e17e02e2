package dev.baton.confignode.rolling;

import java.util.Locale;
import java.util.Optional;

/**
 * How one node's restart went.
 *
 * @param id the node
 * @param handedTo the member it handed leadership to first, if it led
 * @param handOverMillis from asking for the transfer until another member ran as leader (0 for a
 *     follower)
 * @param downMillis from the restart until a new process answered
 * @param catchUpMillis from then until it had applied {@code targetIndex}
 * @param targetIndex the leader's commit index when the restart began
 */
public record NodeRestart(
    String id,
    Optional<String> handedTo,
    long handOverMillis,
    long downMillis,
    long catchUpMillis,
    long targetIndex) {
  private static final double MILLIS_PER_SECOND = 1000.0;

  /** One line: {@code cn2: down 3.1 s, caught up in 0.2 s (applied index 1234)}. */
  public String describe() {
    String handOver =
        handedTo
            .map(
                to ->
                    String.format(
                        Locale.ROOT,
                        " (leader: handed leadership to %s in %.1f s)",
                        to,
                        handOverMillis / MILLIS_PER_SECOND))
            .orElse("");
    return String.format(
        Locale.ROOT,
        "%s%s: down %.1f s, caught up in %.1f s (applied index %d)",
        id,
        handOver,
        downMillis / MILLIS_PER_SECOND,
        catchUpMillis / MILLIS_PER_SECOND,
        targetIndex);
  }
}
