package dev.baton.confignode.datanode;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * The body of {@code POST /faults}: each field is optional, and a field left out keeps its current
 * value. {@code stall: false} releases blocked commands like {@code POST /faults/release}.
 *
 * @param failNext fail the next N commands with 503 without applying them (0 clears)
 * @param latencyMs add this delay to every command (0 clears)
 * @param stall block commands until released
 * @param stallStep if set, the stall blocks only commands whose step key equals it (e.g. {@code
 *     CATCH_UP}), so a test can hold a procedure at one named state; empty clears the filter
 */
public record FaultSettings(Integer failNext, Long latencyMs, Boolean stall, String stallStep) {
  /** Longest latency that may be injected; longer would outlast every client timeout. */
  public static final long MAX_LATENCY_MS = 60_000;

  @JsonCreator
  public FaultSettings {
    if (failNext != null) {
      Checks.nonNegative("failNext", failNext);
    }
    if (latencyMs != null) {
      Checks.nonNegative("latencyMs", latencyMs);
      if (latencyMs > MAX_LATENCY_MS) {
        throw new IllegalArgumentException(
            "field 'latencyMs' must be at most " + MAX_LATENCY_MS + ", got " + latencyMs);
      }
    }
  }

  /** Settings that leave the stall filter as it is. */
  public FaultSettings(Integer failNext, Long latencyMs, Boolean stall) {
    this(failNext, latencyMs, stall, null);
  }

  public static FaultSettings failNextCommands(int n) {
    return new FaultSettings(n, null, null);
  }

  public static FaultSettings addLatency(long millis) {
    return new FaultSettings(null, millis, null);
  }

  public static FaultSettings stallCommands() {
    return new FaultSettings(null, null, true, "");
  }

  /** Stalls only the commands of one step key; the others go through. */
  public static FaultSettings stallStep(String step) {
    if (step == null || step.isEmpty()) {
      throw new IllegalArgumentException("stallStep needs a step key");
    }
    return new FaultSettings(null, null, true, step);
  }
}
