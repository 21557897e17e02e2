package dev.baton.confignode.history;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The rules on submissions: one procedure per nonce, unique ids, roots explained by submissions (a
 * timed-out one possibly applied, a failed one never), ids growing in real time.
 */
final class SubmissionRules extends RuleSet {
  /** At most this many operations are named in one violation. */
  static final int MAX_NAMED = 10;

  SubmissionRules(SubmissionIndex submissions, List<HistoryViolation> out) {
    super(submissions, out);
  }

  void check(List<Operation> operations, FinalState end) {
    oneProcedurePerNonce();
    uniqueIds();
    runsOncePerNonce(end);
    idsGrow(operations);
  }

  private void oneProcedurePerNonce() {
    submissions()
        .byNonce()
        .forEach(
            (nonce, attempts) -> {
              Operation first = null;
              for (Operation o : attempts) {
                if (!o.ok()) {
                  continue;
                }
                if (first == null) {
                  first = o;
                } else if (o.reply().procId() != first.reply().procId()) {
                  report(
                      HistoryRule.ONE_PROCEDURE_PER_NONCE,
                      String.format(
                          "nonce %d was acknowledged as procedure %d and as procedure %d",
                          nonce, first.reply().procId(), o.reply().procId()),
                      List.of(first, o));
                  return;
                }
              }
            });
  }

  private void uniqueIds() {
    Map<Long, Operation> byId = new HashMap<>();
    submissions()
        .byNonce()
        .forEach(
            (nonce, attempts) ->
                SubmissionIndex.firstOk(attempts)
                    .ifPresent(
                        o -> {
                          Operation other = byId.putIfAbsent(o.reply().procId(), o);
                          if (other != null) {
                            report(
                                HistoryRule.UNIQUE_IDS,
                                String.format(
                                    "procedure %d was acknowledged for nonces %d and %d",
                                    o.reply().procId(), other.request().nonce(), nonce),
                                List.of(other, o));
                          }
                        }));
  }

  /**
   * Per type, the roots at the end that no acknowledged submission returned must not outnumber the
   * nonces that may have been applied unseen: none of their attempts acknowledged, one of them
   * without an answer. A nonce whose attempts all failed made no procedure.
   */
  private void runsOncePerNonce(FinalState end) {
    Map<String, List<Long>> unexplained = new TreeMap<>();
    for (ProcedureSeen p : end.procedures()) {
      if (p.root()
          && !end.selfSubmittedTypes().contains(p.type())
          && submissions().acknowledging(p.procId()).isEmpty()) {
        unexplained.computeIfAbsent(p.type(), t -> new ArrayList<>()).add(p.procId());
      }
    }
    Map<String, List<Operation>> possibly = new HashMap<>();
    Map<String, List<Operation>> failed = new HashMap<>();
    submissions()
        .byNonce()
        .forEach(
            (nonce, attempts) -> {
              if (SubmissionIndex.firstOk(attempts).isPresent()) {
                return;
              }
              String type = attempts.get(0).request().type();
              Optional<Operation> unknown =
                  attempts.stream().filter(o -> o.reply().outcome() == Outcome.UNKNOWN).findFirst();
              if (unknown.isPresent()) {
                possibly.computeIfAbsent(type, t -> new ArrayList<>()).add(unknown.get());
              } else {
                failed.computeIfAbsent(type, t -> new ArrayList<>()).add(attempts.get(0));
              }
            });
    unexplained.forEach(
        (type, ids) -> {
          List<Operation> may = possibly.getOrDefault(type, List.of());
          if (ids.size() > may.size()) {
            List<Operation> named = new ArrayList<>(may);
            named.addAll(failed.getOrDefault(type, List.of()));
            report(
                HistoryRule.RUNS_ONCE_PER_NONCE,
                String.format(
                    "%d root %s procedures at the end %s were returned to no acknowledged"
                        + " submission, but only %d nonces of %s may have been applied unseen"
                        + " (%d failed ones made none): a nonce ran twice or a failed"
                        + " submission ran",
                    ids.size(),
                    type,
                    ids.size() > MAX_NAMED ? ids.subList(0, MAX_NAMED) + "..." : ids,
                    may.size(),
                    type,
                    failed.getOrDefault(type, List.of()).size()),
                named.subList(0, Math.min(MAX_NAMED, named.size())));
          }
        });
  }

  /**
   * Every procedure id known (acknowledged, or returned by a read) before a nonce's first attempt
   * started is lower than the id that nonce got: ids are handed out in log order.
   */
  private void idsGrow(List<Operation> operations) {
    List<long[]> known = new ArrayList<>(); // {end, highest id known by then, operation index}
    for (int i = 0; i < operations.size(); i++) {
      Operation o = operations.get(i);
      if (!o.ok()) {
        continue;
      }
      long highest =
          o.request().isSubmit()
              ? o.reply().procId()
              : o.reply().seen().stream().mapToLong(ProcedureSeen::procId).max().orElse(0);
      if (highest > 0) {
        known.add(new long[] {o.endNanos(), highest, i});
      }
    }
    known.sort(Comparator.comparingLong(k -> k[0]));
    List<List<Operation>> nonces = new ArrayList<>(submissions().byNonce().values());
    nonces.sort(Comparator.comparingLong(a -> a.get(0).startNanos()));
    int next = 0;
    long[] highest = null;
    for (List<Operation> attempts : nonces) {
      Optional<Operation> ack = SubmissionIndex.firstOk(attempts);
      Operation first = attempts.get(0);
      while (next < known.size() && known.get(next)[0] < first.startNanos()) {
        if (highest == null || known.get(next)[1] > highest[1]) {
          highest = known.get(next);
        }
        next++;
      }
      if (ack.isPresent() && highest != null && ack.get().reply().procId() <= highest[1]) {
        Operation source = operations.get((int) highest[2]);
        report(
            HistoryRule.IDS_GROW,
            String.format(
                "nonce %d was first sent after procedure %d was known, yet got procedure %d",
                first.request().nonce(), highest[1], ack.get().reply().procId()),
            first == ack.get() ? List.of(source, first) : List.of(source, first, ack.get()));
      }
    }
  }
}
