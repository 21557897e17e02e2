package dev.baton.confignode.history;

import java.util.List;

/** A group of rules checked over one history: the submissions to look up, where violations go. */
abstract class RuleSet {
  private final SubmissionIndex submissions;
  private final List<HistoryViolation> out;

  RuleSet(SubmissionIndex submissions, List<HistoryViolation> out) {
    this.submissions = submissions;
    this.out = out;
  }

  final SubmissionIndex submissions() {
    return submissions;
  }

  final void report(HistoryRule rule, String text, List<Operation> operations) {
    out.add(new HistoryViolation(rule, text, operations));
  }
}
