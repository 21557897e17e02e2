package dev.baton.confignode.history;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a client operation got back; built by the factories.
 *
 * @param outcome ok, failed or unknown
 * @param reason why it failed or is unknown (empty when ok)
 * @param procId the procedure id an acknowledged submission returned, else 0
 * @param seen the procedures an ok read returned: none or one for a read of a procedure (none: not
 *     found), every procedure for a read of the list
 * @param databases the database names an ok read of the metadata returned, else empty
 */
public record Reply(
    Outcome outcome, String reason, long procId, List<ProcedureSeen> seen, Set<String> databases) {
  public Reply {
    Objects.requireNonNull(outcome, "outcome");
    reason = reason == null ? "" : reason;
    seen = List.copyOf(seen);
    databases = Set.copyOf(databases);
  }

  /** An acknowledged submission that returned {@code procId}. */
  public static Reply submitted(long procId) {
    return new Reply(Outcome.OK, "", procId, List.of(), Set.of());
  }

  /** A read of a procedure that found it. */
  public static Reply found(ProcedureSeen procedure) {
    return new Reply(Outcome.OK, "", 0, List.of(procedure), Set.of());
  }

  /** A read of a procedure that answered: no such procedure. */
  public static Reply notFound() {
    return new Reply(Outcome.OK, "", 0, List.of(), Set.of());
  }

  /** A read of the list that returned these procedures. */
  public static Reply procedures(List<ProcedureSeen> all) {
    return new Reply(Outcome.OK, "", 0, all, Set.of());
  }

  /** A read of the metadata that returned these databases. */
  public static Reply databases(Set<String> names) {
    return new Reply(Outcome.OK, "", 0, List.of(), names);
  }

  /** A definite refusal: no effect. */
  public static Reply failed(String reason) {
    return new Reply(Outcome.FAILED, reason, 0, List.of(), Set.of());
  }

  /** No definite answer: possibly applied. */
  public static Reply unknown(String reason) {
    return new Reply(Outcome.UNKNOWN, reason, 0, List.of(), Set.of());
  }

  public boolean ok() {
    return outcome == Outcome.OK;
  }

  /** What this read returned for {@code procId} (empty: not there). */
  public Optional<ProcedureSeen> seen(long procId) {
    return seen.stream().filter(p -> p.procId() == procId).findFirst();
  }

  /** In words, for a violation's text; {@code kind} is what was asked. */
  String describe(OperationKind kind) {
    if (!ok()) {
      return outcome.name().toLowerCase(Locale.ROOT) + " (" + reason + ")";
    }
    return switch (kind) {
      case SUBMIT -> "ok, procedure " + procId;
      case READ_PROCEDURE -> seen.isEmpty() ? "ok, not found" : "ok, " + seen.get(0);
      case READ_LIST -> "ok, " + seen.size() + " procedures";
      case READ_METADATA -> "ok, databases " + new TreeSet<>(databases);
    };
  }
}
