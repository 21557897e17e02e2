package dev.baton.procedure.scheduler;

/**
 * What the schedulers, the {@link LockManager} and the {@link ProcedureLimiter} read from a
 * procedure: its id and its type. {@link dev.baton.procedure.Procedure} implements it; this package
 * knows nothing else of procedures.
 *
 * <p>Everything here keeps and compares procedures by identity (the object), never by id: a
 * procedure object of an executor that stopped is not the object its successor loaded for the same
 * id. The id and type only appear in wait reasons and snapshots, and the type picks the limit.
 */
public interface Schedulable {

  /** The procedure id. */
  long getProcId();

  /** The registered type name (what {@link ProcedureLimiter} limits by). */
  String getType();
}
