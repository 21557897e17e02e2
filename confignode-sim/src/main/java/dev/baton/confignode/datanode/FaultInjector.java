package dev.baton.confignode.datanode;

import dev.baton.confignode.http.ErrorReply;
import java.util.Optional;

/**
 * The faults injected into a DataNode's commands: fail the next N with 503, add latency, or stall
 * them until released. Each command passes {@link #beforeCommand} before it is applied: first it
 * waits out a stall, then the latency, then it may be failed. Thread-safe.
 */
final class FaultInjector {
  private int failNext;
  private long latencyMs;
  private boolean stalled;
  private String stallStep;
  private int waiting;
  private long injectedFailures;
  private boolean closed;

  synchronized void configure(FaultSettings settings) {
    if (settings.failNext() != null) {
      failNext = settings.failNext();
    }
    if (settings.latencyMs() != null) {
      latencyMs = settings.latencyMs();
    }
    if (settings.stallStep() != null) {
      stallStep = settings.stallStep().isEmpty() ? null : settings.stallStep();
    }
    if (settings.stall() != null) {
      stalled = settings.stall();
      notifyAll();
    }
  }

  /** Lets stalled commands go on, and new ones through. */
  synchronized void release() {
    stalled = false;
    notifyAll();
  }

  /** Clears every fault (the failure count stays) and releases stalled commands. */
  synchronized void reset() {
    failNext = 0;
    latencyMs = 0;
    stallStep = null;
    release();
  }

  /** Releases stalled commands for good; they and later ones fail as shutting down. */
  synchronized void close() {
    closed = true;
    notifyAll();
  }

  synchronized FaultState state() {
    return new FaultState(failNext, latencyMs, stalled, waiting, injectedFailures, stallStep);
  }

  /**
   * Applies the faults to one command of step key {@code step}: blocks while stalled (for this
   * step), sleeps the latency, then returns the error to answer if the command is to fail, or empty
   * to go on.
   */
  Optional<ErrorReply> beforeCommand(String step) throws InterruptedException {
    long delay;
    synchronized (this) {
      waiting++;
      try {
        while (stalled && !closed && (stallStep == null || stallStep.equals(step))) {
          wait();
        }
      } finally {
        waiting--;
      }
      if (closed) {
        return Optional.of(shuttingDown());
      }
      delay = latencyMs;
    }
    if (delay > 0) {
      Thread.sleep(delay);
    }
    synchronized (this) {
      if (closed) {
        return Optional.of(shuttingDown());
      }
      if (failNext > 0) {
        failNext--;
        injectedFailures++;
        return Optional.of(
            new ErrorReply(
                DataNodeErrors.INJECTED_FAILURE,
                "injected failure; nothing was applied (" + failNext + " more to fail)"));
      }
      return Optional.empty();
    }
  }

  private static ErrorReply shuttingDown() {
    return new ErrorReply(
        DataNodeErrors.SHUTTING_DOWN, "the DataNode is shutting down; nothing was applied");
  }
}
