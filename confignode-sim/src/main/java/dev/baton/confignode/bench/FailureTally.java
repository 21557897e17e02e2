package dev.baton.confignode.bench;

import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The failed operations of one bench phase as they happen, and whether the phase should stop: when
 * no operation succeeded for {@link Limits#allFailingFor} while some failed (a cluster that cannot
 * serve), or more than {@link Limits#maxFailures} failed. Safe for the phase's client threads.
 */
final class FailureTally {
  /** Error messages a report shows per phase: the most common ones. */
  static final int TOP_ERRORS = 3;

  /**
   * Distinct error messages counted one by one, at most; further ones are counted under {@link
   * #OTHER}. Bounds the memory of a phase whose errors each say something else.
   */
  static final int MAX_DISTINCT = 100;

  /** An error message is cut to this many characters: a line of the report, not a dump. */
  static final int MAX_MESSAGE_CHARS = 200;

  static final String OTHER = "(other errors)";

  private static final long MILLIS_PER_SECOND = 1000;

  /**
   * When a phase stops.
   *
   * @param maxFailures failed operations a phase may have; one more stops it
   * @param allFailingFor how long a phase goes on while every operation fails
   */
  record Limits(int maxFailures, Duration allFailingFor) {
    /** No bound on the failures' count. */
    static final int UNLIMITED = Integer.MAX_VALUE;
  }

  private final String phase;
  private final Limits limits;
  private final Map<String, Integer> byMessage = new LinkedHashMap<>();
  private int count;
  private long lastSuccessNanos = System.nanoTime();
  private String stopReason;

  FailureTally(String phase, Limits limits) {
    this.phase = phase;
    this.limits = limits;
  }

  /** One operation succeeded. */
  synchronized void succeeded() {
    lastSuccessNanos = System.nanoTime();
  }

  /** An operation's exception as an error message: its type, and what it said. */
  static String describe(Exception e) {
    String type = e.getClass().getSimpleName();
    return e.getMessage() == null ? type : type + ": " + e.getMessage();
  }

  /** One operation failed, for this reason. */
  synchronized void failed(String message) {
    count++;
    String line = message.replaceAll("\\s+", " ").strip();
    if (line.length() > MAX_MESSAGE_CHARS) {
      line = line.substring(0, MAX_MESSAGE_CHARS) + "...";
    }
    if (!byMessage.containsKey(line) && byMessage.size() >= MAX_DISTINCT) {
      line = OTHER;
    }
    byMessage.merge(line, 1, Integer::sum);
    if (stopReason != null) {
      return;
    }
    Duration sinceSuccess = Duration.ofNanos(System.nanoTime() - lastSuccessNanos);
    if (count > limits.maxFailures()) {
      stopReason = "more than " + limits.maxFailures() + " operations failed";
    } else if (sinceSuccess.compareTo(limits.allFailingFor()) >= 0) {
      stopReason = "no operation succeeded in " + seconds(limits.allFailingFor());
    }
  }

  private static String seconds(Duration d) {
    return d.toMillis() % MILLIS_PER_SECOND == 0
        ? d.toSeconds() + " s"
        : d.toMillis() / (double) MILLIS_PER_SECOND + " s";
  }

  /** Whether the phase should stop. */
  synchronized boolean stopped() {
    return stopReason != null;
  }

  /**
   * Why the phase stopped, with what failed: {@code procedures: stopped, no operation succeeded in
   * 30 s (12 failed: ...)}; null while it goes on.
   */
  synchronized String stopMessage() {
    return stopReason == null
        ? null
        : phase + ": stopped, " + stopReason + " (" + summary().describe() + ")";
  }

  /** The failures so far, the most common messages first (in order of appearance on a tie). */
  synchronized PhaseFailures summary() {
    return new PhaseFailures(
        phase,
        count,
        byMessage.entrySet().stream()
            .sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()))
            .limit(TOP_ERRORS)
            .map(e -> new PhaseFailures.ErrorCount(e.getKey(), e.getValue()))
            .toList());
  }
}
