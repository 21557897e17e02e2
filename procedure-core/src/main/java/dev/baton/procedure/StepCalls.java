package dev.baton.procedure;

/**
 * The {@link CallReporter} of one procedure: the call its step reported last, kept until the call
 * succeeds or a later step succeeds. Written by the worker that runs the step, read by views on
 * other threads. Times are the wall clock (epoch ms).
 */
final class StepCalls implements CallReporter {
  /** The call reported last, its attempt, and whether it is still in flight. */
  record Call(
      String target, String command, int attempt, long since, String lastError, boolean inFlight) {}

  private volatile Call last;

  @Override
  public void started(String target, String command) {
    Call prev = last;
    boolean again =
        prev != null
            && !prev.inFlight()
            && prev.target().equals(target)
            && prev.command().equals(command);
    last =
        new Call(
            target,
            command,
            again ? prev.attempt() + 1 : 1,
            System.currentTimeMillis(),
            again ? prev.lastError() : null,
            true);
  }

  @Override
  public void succeeded() {
    last = null;
  }

  @Override
  public void failed(String error) {
    Call c = last;
    if (c != null) {
      last = new Call(c.target(), c.command(), c.attempt(), c.since(), error, false);
    }
  }

  /**
   * The step ended: after a success nothing is awaited; after a failure a call the step left in
   * flight failed with it.
   */
  void stepEnded(String failure) {
    Call c = last;
    if (failure == null) {
      last = null;
    } else if (c != null && c.inFlight()) {
      failed(failure);
    }
  }

  /** The call reported last, or null. */
  Call last() {
    return last;
  }
}
