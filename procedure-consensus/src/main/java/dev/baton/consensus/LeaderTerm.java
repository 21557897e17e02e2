package dev.baton.consensus;

import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.store.StoreRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the {@link LeadershipManager} keeps of one leadership term beside its {@link
 * LeaderRoleMachine}: the executor incarnation attached to it, the submissions waiting for one, and
 * what waits for it to run. Every field is guarded by the manager's monitor; the role, epoch and
 * relaunch decisions live in the machine.
 */
final class LeaderTerm<Env> {
  /** A submission applied while no executor could adopt it. */
  record Adoption(long index, StoreRecord record) {}

  final long term;

  final List<Adoption> pending = new ArrayList<>();

  /** Completes when the current incarnation runs; replaced when a running incarnation fails. */
  CompletableFuture<Void> running = new CompletableFuture<>();

  /** The incarnation built and not yet attached (null otherwise). */
  ExecutorLauncher.Incarnation<Env> built;

  /** The attached incarnation's store and executor (null while none is attached). */
  RaftProcedureStore store;

  ProcedureExecutor<Env> executor;

  /** Wall-clock times of the current launch: its build began, its start began. */
  long buildFrom;

  long startFrom;

  LeaderTerm(long term) {
    this.term = term;
  }

  /** Takes the submissions waiting for an executor. */
  List<Adoption> drainPending() {
    List<Adoption> backlog = new ArrayList<>(pending);
    pending.clear();
    return backlog;
  }
}
