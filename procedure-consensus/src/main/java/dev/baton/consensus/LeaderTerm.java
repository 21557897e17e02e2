package dev.baton.consensus;

import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.store.StoreRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The state of one leadership term of a node, from "ready as leader" until leadership ends; every
 * field is guarded by the {@link LeadershipManager}'s monitor.
 *
 * <p>A term runs one executor incarnation at a time. The first has epoch 0; when an incarnation
 * stops by itself while the node stays leader, the next one first opens a new epoch with a {@code
 * Fence} entry (so nothing the failed one handed to Ratis can land after the table is read) and
 * writes with that epoch.
 */
final class LeaderTerm<Env> {
  /** A submission applied while no executor could adopt it. */
  record Adoption(long index, StoreRecord record) {}

  final long term;

  /**
   * Wall-clock time the term's current recovery began: when the node became the ready leader, then
   * each time a running incarnation stopped by itself.
   */
  long recoveringSince;

  final List<Adoption> pending = new ArrayList<>();

  /** Completes when the current incarnation runs; replaced when an incarnation fails. */
  CompletableFuture<Void> running = new CompletableFuture<>();

  RaftProcedureStore store;
  ProcedureExecutor<Env> executor;

  /** The executor epoch of the latest incarnation (0 until a fence opened another). */
  long epoch;

  /** Whether leadership of this term ended (or the node shuts down). */
  boolean abandoned;

  /** Incarnations launched so far (started or not); every one after the first fences. */
  int launches;

  /** The failed launches of this term in a row; guarded like every other field. */
  final RelaunchStreak streak;

  LeaderTerm(long term, long readyAt, RelaunchStreak streak) {
    this.term = term;
    this.recoveringSince = readyAt;
    this.streak = streak;
  }
}
