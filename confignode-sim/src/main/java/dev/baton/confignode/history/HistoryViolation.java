package dev.baton.confignode.history;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A broken rule: which, what happened in words, and the operations involved (empty for a fact of
 * the end state alone, such as a DataNode ledger).
 */
public record HistoryViolation(HistoryRule rule, String text, List<Operation> operations) {
  public HistoryViolation {
    operations = List.copyOf(operations);
  }

  @Override
  public String toString() {
    String ops = operations.stream().map(o -> "\n      " + o).collect(Collectors.joining());
    return rule + " (" + rule.meaning() + "): " + text + ops;
  }
}
