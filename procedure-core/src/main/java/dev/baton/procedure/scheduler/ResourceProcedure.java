package dev.baton.procedure.scheduler;

/**
 * Implemented by a {@link dev.baton.procedure.Procedure} that works on one named resource, so that
 * {@link FairScheduler} queues it with the other procedures of that resource (HBase's {@code
 * TableProcedureInterface}). Procedures that do not implement it, or return null, go to the
 * scheduler's "other" queue.
 *
 * <p>Naming a resource only affects the order in which procedures are served; it takes no lock.
 * Locks are taken in {@code acquireLock} through a {@link LockManager}.
 */
public interface ResourceProcedure {

  /**
   * The resource this procedure is queued under. Called whenever the procedure is queued, from any
   * thread: it must be cheap, must not throw, and should not change while the procedure lives.
   */
  ResourceKey schedulingResource();
}
