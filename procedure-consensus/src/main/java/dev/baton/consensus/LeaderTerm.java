package dev.baton.consensus;

import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.store.StoreRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the {@link LeadershipManager} keeps of one leadership term beside its {@link
 * LeaderRoleMachine}: the executor incarnation attached to it, the submissions waiting for one, and
 * what waits for it to run. Every method is called under by the manager's monitor; the role, epoch
 * and relaunch decisions live in the machine.
 */
final class LeaderTerm<Env> {
  /** A submission applied while no executor could adopt it. */
  record Adoption(long index, StoreRecord record) {}

  private final long term;

  private final List<Adoption> pending = new ArrayList<>();

  /** Completes when the current incarnation runs; replaced when a running incarnation fails. */
  private CompletableFuture<Void> running = new CompletableFuture<>();

  /** The incarnation built and not yet attached (null otherwise). */
  private ExecutorLauncher.Incarnation<Env> built;

  /** The attached incarnation's store and executor (null while none is attached). */
  private RaftProcedureStore store;

  private ProcedureExecutor<Env> executor;

  /** Wall-clock times of the current launch: its build began, its start began. */
  private long buildFrom;

  private long startFrom;

  LeaderTerm(long term) {
    this.term = term;
  }

  long term() {
    return term;
  }

  /** A submission applied while no executor could adopt it: adopted once one runs. */
  void park(Adoption adoption) {
    pending.add(adoption);
  }

  /** Completes when the current incarnation runs (exceptionally when the term ends). */
  CompletableFuture<Void> running() {
    return running;
  }

  /** The attached incarnation's executor, or null while none is attached. */
  ProcedureExecutor<Env> executor() {
    return executor;
  }

  /** The attached incarnation's store, or null while none is attached. */
  RaftProcedureStore store() {
    return store;
  }

  /** An incarnation was built, its build having begun at {@code from} (wall clock). */
  void built(ExecutorLauncher.Incarnation<Env> incarnation, long from) {
    built = incarnation;
    buildFrom = from;
  }

  /** Attaches the built incarnation; returns its executor. */
  ProcedureExecutor<Env> attachBuilt() {
    store = built.store();
    executor = built.executor();
    built = null;
    return executor;
  }

  /** The attached executor's start began at {@code from} (wall clock). */
  void startedAt(long from) {
    startFrom = from;
  }

  long buildFrom() {
    return buildFrom;
  }

  long startFrom() {
    return startFrom;
  }

  /**
   * Detaches the incarnation; with {@code newRecovery}, what waits for the term to run waits for
   * the next incarnation.
   */
  void release(boolean newRecovery) {
    executor = null;
    store = null;
    if (newRecovery) {
      running = new CompletableFuture<>();
    }
  }

  /** Takes the submissions waiting for an executor. */
  List<Adoption> drainPending() {
    List<Adoption> backlog = new ArrayList<>(pending);
    pending.clear();
    return backlog;
  }
}
