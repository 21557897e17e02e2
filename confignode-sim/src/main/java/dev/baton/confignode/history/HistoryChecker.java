package dev.baton.confignode.history;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Checks a {@link History} against every {@link HistoryRule}: pure and deterministic (the same
 * history gives the same violations in the same order).
 *
 * <p>The rules assume what the cluster promises: reads are linearizable on every node; a submission
 * with a nonce creates at most one procedure, whose id is the state machine's next one when its log
 * entry applies; completed procedures are kept (retention) for longer than the history lasts.
 */
public final class HistoryChecker {
  private HistoryChecker() {}

  /** The violations, empty if the history keeps every rule. */
  public static List<HistoryViolation> check(History history) {
    List<HistoryViolation> out = new ArrayList<>();
    List<Operation> operations = history.operations();
    FinalState end = history.end();
    SubmissionIndex submissions = new SubmissionIndex(operations);
    new SubmissionRules(submissions, out).check(operations, end);
    new ReadRules(submissions, out).check(operations, Operation.endProcedures(end));
    new MetadataRules(submissions, out).check(operations, Operation.endDatabases(end));
    out.addAll(LedgerRules.check(end.ledgers()));
    return List.copyOf(out);
  }

  /**
   * A line for a report: the operations by kind and outcome, and whether every rule held (the
   * violations themselves are the caller's to print).
   */
  public static String summary(History history, List<HistoryViolation> violations) {
    Map<OperationKind, Map<Outcome, Integer>> counts = new EnumMap<>(OperationKind.class);
    for (Operation o : history.operations()) {
      counts
          .computeIfAbsent(o.kind(), k -> new EnumMap<>(Outcome.class))
          .merge(o.reply().outcome(), 1, Integer::sum);
    }
    StringBuilder b =
        new StringBuilder("history: ").append(history.operations().size()).append(" operations");
    counts.forEach(
        (kind, byOutcome) -> {
          b.append("; ").append(kind.name().toLowerCase(Locale.ROOT));
          byOutcome.forEach(
              (outcome, n) ->
                  b.append(' ')
                      .append(n)
                      .append(' ')
                      .append(outcome.name().toLowerCase(Locale.ROOT)));
        });
    b.append(
        violations.isEmpty()
            ? "; every history rule holds"
            : "; " + violations.size() + " history rule violations");
    return b.toString();
  }
}
