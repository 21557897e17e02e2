package dev.baton.confignode.events;

import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;

/**
 * One change of a procedure's stored record, as a watcher of {@code GET /api/events} sees it.
 *
 * @param id where the change stands in the log ({@link EventId})
 * @param procId the procedure
 * @param parentProcId its parent, 0 for a root
 * @param rootProcId its root
 * @param type its type
 * @param state its state after the change
 * @param step the step it is at, if known
 * @param finished whether it finished
 * @param lastUpdate when its record was written (ms since the epoch)
 * @param failure its failure text, if it failed
 * @param deleted whether the change removed the record (retention over)
 */
public record ProcedureEvent(
    EventId id,
    long procId,
    long parentProcId,
    long rootProcId,
    String type,
    ProcedureState state,
    String step,
    boolean finished,
    long lastUpdate,
    String failure,
    boolean deleted) {

  static ProcedureEvent of(EventId id, ProcedureInfo i, boolean deleted) {
    return new ProcedureEvent(
        id,
        i.procId(),
        i.parentProcId(),
        i.rootProcId(),
        i.type(),
        i.state(),
        i.stepName(),
        i.finished(),
        i.lastUpdate(),
        i.failure(),
        deleted);
  }
}
