package dev.baton.confignode.history;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The rule on reads of the metadata: once a read saw a database's CreateDatabase succeed, a read of
 * the metadata that starts later has the database, unless a DeleteDatabase of it was sent before
 * that read ended; once a read saw its DeleteDatabase succeed, a later read does not have it,
 * unless more than one CreateDatabase of it was sent (one may have run after the delete).
 */
final class MetadataRules extends RuleSet {

  MetadataRules(SubmissionIndex submissions, List<HistoryViolation> out) {
    super(submissions, out);
  }

  /** Checks {@code operations} and {@code end}, the databases at the end as a last read. */
  void check(List<Operation> operations, Operation end) {
    Map<String, Operation> created = new TreeMap<>();
    Map<String, Operation> deleted = new TreeMap<>();
    for (Operation o : operations) {
      if (!o.ok() || o.kind() == OperationKind.SUBMIT || o.kind() == OperationKind.READ_METADATA) {
        continue;
      }
      for (ProcedureSeen p : o.reply().seen()) {
        Optional<Operation> ack = submissions().acknowledging(p.procId());
        if (p.succeeded() && ack.isPresent() && ack.get().request().database() != null) {
          Request r = ack.get().request();
          Map<String, Operation> into =
              switch (r.type()) {
                case Request.CREATE_DATABASE -> created;
                case Request.DELETE_DATABASE -> deleted;
                default -> new HashMap<>();
              };
          into.merge(r.database(), o, (a, b) -> a.endNanos() <= b.endNanos() ? a : b);
        }
      }
    }
    Set<String> recreated = new HashSet<>();
    for (String db : deleted.keySet()) {
      if (submissions().firstAttemptsOf(Request.CREATE_DATABASE, db).size() > 1) {
        recreated.add(db);
      }
    }
    for (Operation o : operations) {
      if (o.ok() && o.kind() == OperationKind.READ_METADATA) {
        checkRead(o, created, deleted, recreated);
      }
    }
    checkRead(end, created, deleted, recreated);
  }

  private void checkRead(
      Operation read,
      Map<String, Operation> created,
      Map<String, Operation> deleted,
      Set<String> recreated) {
    Set<String> has = read.reply().databases();
    created.forEach(
        (db, seen) -> {
          if (seen.precedes(read) && !has.contains(db) && !deleteSentBefore(db, read)) {
            report(
                HistoryRule.METADATA_SEES_FINISHED,
                "database "
                    + db
                    + " was seen created, and no DeleteDatabase of it was sent, yet a later"
                    + " read of the metadata does not have it",
                List.of(seen, read));
          }
        });
    deleted.forEach(
        (db, seen) -> {
          if (seen.precedes(read) && has.contains(db) && !recreated.contains(db)) {
            report(
                HistoryRule.METADATA_SEES_FINISHED,
                "database "
                    + db
                    + " was seen deleted, and created only once, yet a later read of the"
                    + " metadata has it",
                List.of(seen, read));
          }
        });
  }

  private boolean deleteSentBefore(String db, Operation read) {
    return submissions().firstAttemptsOf(Request.DELETE_DATABASE, db).stream()
        .anyMatch(d -> d.startNanos() < read.endNanos());
  }
}
