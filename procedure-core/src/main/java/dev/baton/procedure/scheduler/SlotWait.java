package dev.baton.procedure.scheduler;

/**
 * Why one procedure waits in a {@link ProcedureLimiter}: its type's limit is full.
 *
 * @param type the procedure's type
 * @param limit how many steps of the type may execute at once
 * @param inUse slots taken now (running or reserved)
 * @param ahead procedures of the type queued ahead of it
 */
public record SlotWait(String type, int limit, int inUse, int ahead) {

  /** "waiting for a slot: limit of type MigrateRegion is full (4 of 4 in use), 2 ahead ...". */
  public String describe() {
    return "waiting for a slot: limit of type "
        + type
        + " is full ("
        + inUse
        + " of "
        + limit
        + " in use), "
        + ahead
        + " ahead in its queue";
  }
}
