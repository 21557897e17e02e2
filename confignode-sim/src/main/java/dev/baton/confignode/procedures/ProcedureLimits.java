package dev.baton.confignode.procedures;

import dev.baton.consensus.ProcedureNode;
import java.time.Duration;

/**
 * What one request may ask of the cluster, set by the operator per node: the cap on unfinished
 * procedures (checked by the cluster when a submission is applied, with the leader's value), and
 * how many steps a {@code Noop} and how long a {@code Sleep} may take (checked when the request is
 * read).
 *
 * @param maxLiveProcedures unfinished root procedures the cluster may hold (0: no cap)
 * @param maxNoopSteps steps one Noop may take, 1 to {@link Noop#MAX_STEPS}
 * @param maxSleepMillis how long one Sleep may wait, in milliseconds (at least 0)
 */
public record ProcedureLimits(long maxLiveProcedures, int maxNoopSteps, long maxSleepMillis) {
  /** The longest Sleep by default: a drill's waits are seconds; an hour-long one is a mistake. */
  public static final long DEFAULT_MAX_SLEEP_MILLIS = Duration.ofHours(1).toMillis();

  /** The defaults: {@link ProcedureNode#DEFAULT_MAX_LIVE_PROCEDURES}, 10,000 steps, one hour. */
  public static final ProcedureLimits DEFAULTS =
      new ProcedureLimits(
          ProcedureNode.DEFAULT_MAX_LIVE_PROCEDURES, Noop.MAX_STEPS, DEFAULT_MAX_SLEEP_MILLIS);

  public ProcedureLimits {
    Validation.range("maxLiveProcedures", maxLiveProcedures, 0, Long.MAX_VALUE);
    Validation.range("maxNoopSteps", maxNoopSteps, 1, Noop.MAX_STEPS);
    Validation.range("maxSleepMillis", maxSleepMillis, 0, Long.MAX_VALUE);
  }

  void checkNoopSteps(int steps) {
    if (steps > maxNoopSteps) {
      throw new IllegalArgumentException(
          "steps "
              + steps
              + " is more than this node allows (max-noop-steps "
              + maxNoopSteps
              + ")");
    }
  }

  void checkSleepMillis(long millis) {
    if (millis > maxSleepMillis) {
      throw new IllegalArgumentException(
          "millis "
              + millis
              + " is longer than this node allows (max-sleep-ms "
              + maxSleepMillis
              + ")");
    }
  }
}
