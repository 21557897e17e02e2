package dev.baton.procedure;

import java.util.Locale;
import java.util.Optional;

/** What an operator may do to a live procedure (see {@link ProcedureExecutor#act}). */
public enum OperatorAction {
  /**
   * Ask the procedure to abort ({@link ProcedureExecutor#abort}): if it agrees in its current step,
   * it fails at its next turn and its tree rolls back; otherwise nothing changes.
   */
  ABORT,
  /** Fail the procedure now, whether or not it agrees to an abort: its tree rolls back. */
  FORCE_FAIL,
  /**
   * Finish the procedure as SUCCESS without running its remaining steps, releasing its locks;
   * recursively for its unfinished children when asked.
   */
  BYPASS,
  /** End a timed wait or a retry backoff now, so the procedure runs (or rolls back) at once. */
  RETRY_NOW;

  /** The action's name in routes, commands and metrics: {@code force-fail}, {@code bypass}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The action a {@link #label()} names. */
  public static Optional<OperatorAction> ofLabel(String label) {
    for (OperatorAction a : values()) {
      if (a.label().equals(label)) {
        return Optional.of(a);
      }
    }
    return Optional.empty();
  }
}
