package dev.baton.confignode.partition;

import java.time.Duration;
import java.util.Locale;

/**
 * How a ConfigNode in a partition's minority answered one request sent to it directly: with an
 * error (HTTP status, 0 if the connection failed), with an answer, or with an answer that is stale
 * (it did not know a procedure the majority had acknowledged after the cut); and how long it took.
 *
 * @param node the ConfigNode
 * @param request what was asked ({@code submit}, {@code read})
 * @param outcome what came back
 * @param status the HTTP status of an error, 200 for an answer
 * @param millis how long the answer took
 */
public record MinorityAnswer(
    String node, String request, Outcome outcome, int status, long millis) {
  /** What the minority node answered. */
  public enum Outcome {
    /** An error: it could not serve the request without a majority. */
    ERROR,
    /** A current answer (the request reached a majority after all). */
    ANSWERED,
    /** An answer that does not know what the majority acknowledged: never allowed. */
    STALE
  }

  /** Whether the answer is allowed within {@code bound}: no stale answer, none later. */
  public boolean acceptable(Duration bound) {
    return outcome != Outcome.STALE && millis <= bound.toMillis();
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "%s %s: %s%s in %d ms",
        node,
        request,
        outcome.name().toLowerCase(Locale.ROOT),
        outcome == Outcome.ERROR ? " " + status : "",
        millis);
  }
}
