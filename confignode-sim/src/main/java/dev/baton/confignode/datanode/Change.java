package dev.baton.confignode.datanode;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * One durable change of a DataNode's state, as written to its journal. {@link DataNodeCore} decides
 * the changes a command makes without touching anything, the server persists them, and {@link
 * DataNodeCore#apply} applies them, live and again during recovery, with the same result.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
  @JsonSubTypes.Type(value = Change.TermRaised.class, name = "term_raised"),
  @JsonSubTypes.Type(value = Change.Applied.class, name = "applied"),
  @JsonSubTypes.Type(value = Change.StaleRejected.class, name = "stale_rejected"),
  @JsonSubTypes.Type(value = Change.DuplicateSeen.class, name = "duplicate_seen"),
  @JsonSubTypes.Type(value = Change.Superseded.class, name = "superseded")
})
sealed interface Change {
  /** A command carried a term above the highest seen; recorded before the command applies. */
  record TermRaised(long term) implements Change {}

  /**
   * A command was applied: its ledger entry, and what it did to the region table or the
   * invalidation log ({@code effect} null when nothing, e.g. a ping or an existing replica).
   */
  record Applied(LedgerEntry entry, Effect effect) implements Change {}

  /** A command was refused for a stale term. */
  record StaleRejected(RejectedCommand rejected) implements Change {}

  /** A command was answered from the ledger. */
  record DuplicateSeen(DuplicateCommand duplicate) implements Change {}

  /** A command was refused: a later command of its procedure had been applied. */
  record Superseded(SupersededCommand superseded) implements Change {}
}
