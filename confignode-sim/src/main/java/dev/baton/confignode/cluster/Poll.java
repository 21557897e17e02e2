package dev.baton.confignode.cluster;

import java.io.IOException;
import java.time.Duration;

/** Polls a condition until it holds or a deadline passes; errors while polling mean "not yet". */
final class Poll {
  /** Pause between two polls. */
  static final Duration INTERVAL = Duration.ofMillis(50);

  /** A condition that may fail while the cluster is in flux. */
  interface Condition<T> {
    /** The value once the condition holds, or null while it does not. */
    T get() throws Exception;
  }

  private Poll() {}

  static <T> T until(Condition<T> condition, Duration timeout, String what)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    while (true) {
      try {
        T value = condition.get();
        if (value != null) {
          return value;
        }
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        last = e;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "gave up after "
                + timeout.toSeconds()
                + " s waiting for: "
                + what
                + (last == null ? "" : " (last error: " + last.getMessage() + ")"));
      }
      Thread.sleep(INTERVAL.toMillis());
    }
  }

  static void untilTrue(Condition<Boolean> condition, Duration timeout, String what)
      throws IOException, InterruptedException {
    until(() -> Boolean.TRUE.equals(condition.get()) ? Boolean.TRUE : null, timeout, what);
  }
}
