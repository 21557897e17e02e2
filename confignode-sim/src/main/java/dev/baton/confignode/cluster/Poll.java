package dev.baton.confignode.cluster;

import java.io.IOException;
import java.time.Duration;

/**
 * Polls a condition until it holds or a deadline passes; errors while polling mean "not yet". For
 * whatever waits on a {@link ProcessCluster} (tests, the drill, the bench).
 */
public final class Poll {
  /** Pause between two polls. */
  static final Duration INTERVAL = Duration.ofMillis(50);

  /** A condition that may fail while the cluster is in flux. */
  @FunctionalInterface
  public interface Condition<T> {
    /** The value once the condition holds, or null while it does not. */
    T get() throws Exception;
  }

  private Poll() {}

  /** The condition's value once it holds; IOException naming {@code what} after {@code timeout}. */
  public static <T> T until(Condition<T> condition, Duration timeout, String what)
      throws IOException, InterruptedException {
    return until(condition, timeout, INTERVAL, what);
  }

  /** As {@link #until(Condition, Duration, String)}, polling every {@code interval}. */
  static <T> T until(Condition<T> condition, Duration timeout, Duration interval, String what)
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
      Thread.sleep(interval.toMillis());
    }
  }

  /** Returns once the condition is true; IOException naming {@code what} after {@code timeout}. */
  public static void untilTrue(Condition<Boolean> condition, Duration timeout, String what)
      throws IOException, InterruptedException {
    until(() -> Boolean.TRUE.equals(condition.get()) ? Boolean.TRUE : null, timeout, what);
  }
}
