package dev.baton.confignode.history;

/**
 * A procedure as one read returned it.
 *
 * @param procId its id
 * @param root whether it is a root procedure (no parent)
 * @param type its type
 * @param state its state ({@code RUNNABLE}, {@code SUCCESS}, ...)
 * @param finished whether that state is terminal
 */
public record ProcedureSeen(
    long procId, boolean root, String type, String state, boolean finished) {
  /** The terminal state that means it succeeded. */
  public static final String SUCCESS = "SUCCESS";

  public boolean succeeded() {
    return finished && SUCCESS.equals(state);
  }

  @Override
  public String toString() {
    return "procedure " + procId + " (" + type + " " + state + ")";
  }
}
