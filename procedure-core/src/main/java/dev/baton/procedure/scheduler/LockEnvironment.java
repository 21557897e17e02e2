package dev.baton.procedure.scheduler;

/**
 * Implemented by a procedure environment that carries the {@link LockManager} its procedures lock
 * through. An executor built for such an environment uses that manager unless {@code
 * ProcedureExecutor.Builder.lockManager} names another, so the executor and the procedures always
 * share one lock table (also in executors built by the test kit or per leader term).
 */
public interface LockEnvironment {

  /** The lock manager procedures take their resource locks from. */
  LockManager lockManager();
}
