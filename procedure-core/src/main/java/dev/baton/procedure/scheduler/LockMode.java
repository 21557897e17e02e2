package dev.baton.procedure.scheduler;

/** How a resource is locked. */
public enum LockMode {
  /** Many holders at once, none exclusive (reading a database's schema, working on one region). */
  SHARED,
  /** One holder, nobody else (deleting a database, moving a region). */
  EXCLUSIVE;

  /** Whether a holder in this mode may share the resource with a holder in {@code other}. */
  public boolean compatibleWith(LockMode other) {
    return this == SHARED && other == SHARED;
  }

  /** The stronger of the two modes. */
  public LockMode max(LockMode other) {
    return this == EXCLUSIVE || other == EXCLUSIVE ? EXCLUSIVE : SHARED;
  }
}
