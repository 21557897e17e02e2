package dev.baton.procedure;

import java.util.EnumSet;
import java.util.Set;

/**
 * The seven states of a procedure and the transitions the executor may make.
 *
 * <pre>
 * INITIALIZING ─submit─▶ RUNNABLE ─children─▶ WAITING ─children done─▶ RUNNABLE
 *                        RUNNABLE ─wait─▶ WAITING_TIMEOUT ─expired/woken─▶ RUNNABLE
 *                        RUNNABLE ─done─▶ SUCCESS
 *   any non-terminal ─failure/abort─▶ FAILED ─rolled back─▶ ROLLEDBACK
 * </pre>
 *
 * SUCCESS and ROLLEDBACK are terminal; FAILED is terminal only when nothing is left to undo.
 */
public enum ProcedureState {
  INITIALIZING,
  RUNNABLE,
  WAITING,
  WAITING_TIMEOUT,
  ROLLEDBACK,
  SUCCESS,
  FAILED;

  /** Whether the executor may move a procedure from this state to {@code next}. */
  public boolean canTransitionTo(ProcedureState next) {
    return allowedNext().contains(next);
  }

  private Set<ProcedureState> allowedNext() {
    return switch (this) {
      case INITIALIZING -> EnumSet.of(RUNNABLE, FAILED);
      case RUNNABLE -> EnumSet.of(RUNNABLE, WAITING, WAITING_TIMEOUT, SUCCESS, FAILED);
      case WAITING -> EnumSet.of(RUNNABLE, FAILED);
      case WAITING_TIMEOUT -> EnumSet.of(RUNNABLE, FAILED);
      case FAILED -> EnumSet.of(ROLLEDBACK);
      case SUCCESS, ROLLEDBACK -> EnumSet.noneOf(ProcedureState.class);
    };
  }
}
