package dev.baton.confignode.events;

/**
 * Which events a watcher wants: those of one procedure, of one type, or all.
 *
 * @param procId only this procedure's events; 0 for any
 * @param type only this type's events; null for any
 */
public record EventFilter(long procId, String type) {
  public static final EventFilter ALL = new EventFilter(0, null);

  boolean accepts(ProcedureEvent e) {
    return (procId == 0 || e.procId() == procId) && (type == null || type.equals(e.type()));
  }
}
