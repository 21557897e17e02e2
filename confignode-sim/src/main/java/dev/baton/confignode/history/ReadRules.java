package dev.baton.confignode.history;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rules on reads of procedures (of one, of the list, and the procedures at the end): a read
 * finds every procedure acknowledged or found before it started, sees a procedure terminal in the
 * state an earlier read saw it end in, and with the type it was submitted as. Reads are
 * linearizable on every node, so which node answered does not matter.
 */
final class ReadRules extends RuleSet {

  /** Per procedure id, the operation that first (by end) showed it exists. */
  private final Map<Long, Operation> existsBy = new HashMap<>();

  /** Per procedure id, the read that first (by end) saw it terminal. */
  private final Map<Long, Operation> finishedBy = new HashMap<>();

  ReadRules(SubmissionIndex submissions, List<HistoryViolation> out) {
    super(submissions, out);
  }

  /** Checks {@code operations} and {@code end}, the procedures at the end as a last read. */
  void check(List<Operation> operations, Operation end) {
    submissions().acknowledged().forEach((id, o) -> earliest(existsBy, id, o));
    for (Operation o : operations) {
      if (o.ok() && readsProcedures(o)) {
        for (ProcedureSeen p : o.reply().seen()) {
          earliest(existsBy, p.procId(), o);
          if (p.finished()) {
            earliest(finishedBy, p.procId(), o);
          }
        }
      }
    }
    for (Operation o : operations) {
      if (o.ok() && readsProcedures(o)) {
        checkRead(o);
      }
    }
    checkRead(end);
  }

  private static boolean readsProcedures(Operation o) {
    return o.kind() == OperationKind.READ_PROCEDURE || o.kind() == OperationKind.READ_LIST;
  }

  private static void earliest(Map<Long, Operation> map, long procId, Operation o) {
    map.merge(procId, o, (a, b) -> a.endNanos() <= b.endNanos() ? a : b);
  }

  private void checkRead(Operation read) {
    Map<Long, ProcedureSeen> seen = new HashMap<>();
    read.reply().seen().forEach(p -> seen.put(p.procId(), p));
    Set<Long> covered = new HashSet<>(seen.keySet());
    if (read.kind() == OperationKind.READ_PROCEDURE) {
      covered.add(read.request().procId());
    } else {
      covered.addAll(existsBy.keySet());
    }
    for (long id : covered) {
      ProcedureSeen p = seen.get(id);
      if (p == null) {
        missing(read, id);
      } else {
        terminal(read, p);
        type(read, p);
      }
    }
  }

  private void missing(Operation read, long id) {
    Operation before = existsBy.get(id);
    if (before == null || !before.precedes(read)) {
      return;
    }
    Optional<Operation> ack = submissions().acknowledging(id);
    if (read.id() == Operation.END_ID && ack.isPresent()) {
      report(
          HistoryRule.ACKNOWLEDGED_KEPT,
          String.format(
              "acknowledged procedure %d (nonce %d) is lost: not among the procedures at the end",
              id, ack.get().request().nonce()),
          List.of(ack.get()));
      return;
    }
    boolean acked = before.request().isSubmit();
    report(
        HistoryRule.READ_SEES_WRITE,
        String.format(
            "procedure %d was %s before %s started, which did not find it",
            id,
            acked ? "acknowledged" : "found by a read",
            read.id() == Operation.END_ID ? "the final read" : "read #" + read.id()),
        List.of(before, read));
  }

  private void terminal(Operation read, ProcedureSeen p) {
    Operation before = finishedBy.get(p.procId());
    if (before == null || !before.precedes(read)) {
      return;
    }
    ProcedureSeen then = before.reply().seen(p.procId()).orElseThrow();
    if (!p.finished() || !p.state().equals(then.state())) {
      report(
          HistoryRule.TERMINAL_STAYS_TERMINAL,
          String.format(
              "procedure %d was seen terminal in %s, a later read saw it %s%s",
              p.procId(), then.state(), p.finished() ? "terminal in " : "live in ", p.state()),
          List.of(before, read));
    }
  }

  private void type(Operation read, ProcedureSeen p) {
    Optional<Operation> ack = submissions().acknowledging(p.procId());
    if (ack.isPresent() && !ack.get().request().type().equals(p.type())) {
      report(
          HistoryRule.READ_SEES_SUBMITTED_TYPE,
          String.format(
              "procedure %d was submitted as %s, a read found a %s",
              p.procId(), ack.get().request().type(), p.type()),
          List.of(ack.get(), read));
    }
  }
}
