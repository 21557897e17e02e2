package dev.baton.confignode.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The operations of one bench phase that failed: they threw, or their procedure did not end in
 * SUCCESS.
 *
 * @param phase the phase, as the report names it (e.g. {@code procedures})
 * @param count operations that failed
 * @param errors the most common error messages, most common first (at most {@link
 *     FailureTally#TOP_ERRORS})
 */
public record PhaseFailures(String phase, int count, List<ErrorCount> errors) {
  /**
   * One error message and how many operations failed with it.
   *
   * @param message what the operation's exception said, or why its procedure did not succeed
   * @param count operations that failed with it
   */
  public record ErrorCount(String message, int count) {}

  public PhaseFailures {
    errors = List.copyOf(errors);
  }

  /** The count and the most common errors, in one line: {@code 3 failed: 2 × A; 1 × B}. */
  public String describe() {
    if (count == 0) {
      return "none failed";
    }
    return count
        + " failed: "
        + errors.stream()
            .map(e -> e.count() + " × " + e.message())
            .collect(Collectors.joining("; "));
  }

  /** For the JSON line. */
  Map<String, Object> json() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("phase", phase);
    m.put("count", count);
    m.put(
        "errors",
        errors.stream().map(e -> Map.of("message", e.message(), "count", e.count())).toList());
    return m;
  }
}
