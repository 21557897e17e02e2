package dev.baton.confignode.history;

/** What a client operation asked for. */
public enum OperationKind {
  /** {@code POST /api/procedures} with a nonce. */
  SUBMIT,
  /** {@code GET /api/procedures/{id}}. */
  READ_PROCEDURE,
  /** {@code GET /api/procedures}, unfiltered: every procedure. */
  READ_LIST,
  /** {@code GET /api/metadata}: the databases. */
  READ_METADATA
}
