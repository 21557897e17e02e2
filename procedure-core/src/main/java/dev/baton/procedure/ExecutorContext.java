package dev.baton.procedure;

import dev.baton.procedure.scheduler.LockManager;
import dev.baton.procedure.scheduler.ProcedureLimiter;
import dev.baton.procedure.scheduler.ProcedureScheduler;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The state one executor's parts share: live procedures, root stacks, nonces, the completed
 * retainer, the timeout queue, locks and limits ({@link AdmissionControl}), and the store with the
 * helpers that persist procedures. Owned by one {@link ProcedureExecutor}; a restart builds a new
 * one.
 */
final class ExecutorContext<Env> {
  final Env env;
  final ProcedureStore store;
  final ProcedureCodec codec;
  final ProcedureScheduler scheduler;
  final ExecutorConfig config;
  final LongSupplier clock;
  final Map<Long, Procedure<Env>> procedures = new ConcurrentHashMap<>();
  final Map<Long, RootProcedureStack<Env>> stacks = new ConcurrentHashMap<>();
  final Map<NonceKey, Long> nonces = new ConcurrentHashMap<>();
  final Map<Long, ProcedureInfo> corrupt = new ConcurrentHashMap<>();
  final CompletedProcedureRetainer completed = new CompletedProcedureRetainer();
  final TimeoutQueue timeouts;
  final ProcIdAllocator ids;
  final AdmissionControl<Env> admission;
  private final Map<Long, CompletableFuture<ProcedureInfo>> finishWaiters =
      new ConcurrentHashMap<>();
  private final Consumer<Throwable> fatal;
  volatile boolean running;

  ExecutorContext(
      Env env,
      ProcedureStore store,
      ProcedureCodec codec,
      ProcedureScheduler scheduler,
      ExecutorConfig config,
      LongSupplier clock,
      Consumer<Throwable> fatal,
      LockManager locks,
      ProcedureLimiter limiter) {
    this.env = env;
    this.store = store;
    this.codec = codec;
    this.scheduler = scheduler;
    this.config = config;
    this.clock = clock;
    this.timeouts = new TimeoutQueue(clock);
    this.fatal = fatal;
    this.ids = new ProcIdAllocator(store);
    this.admission = new AdmissionControl<>(this, locks, limiter);
  }

  long now() {
    return clock.getAsLong();
  }

  /**
   * Reports an error the executor cannot continue after (a failed store write). No step starts or
   * is recorded from here on, although the stop itself completes on another thread.
   */
  void fail(Throwable cause) {
    running = false;
    fatal.accept(cause);
  }

  /** Persists one procedure. */
  void persist(Procedure<Env> proc) throws IOException {
    write(List.of(proc), List.of());
  }

  /** Persists {@code upserts} and deletes {@code deletes}, atomically, then refreshes snapshots. */
  void write(Collection<Procedure<Env>> upserts, Collection<Procedure<Env>> deletes)
      throws IOException {
    long now = now();
    StoreBatch.Builder b = StoreBatch.builder().maxProcId(ids.highest());
    for (Procedure<Env> p : upserts) {
      p.setLastUpdate(now);
      b.upsert(new StoreRecord(p.getProcId(), codec.encode(p, config.term())));
    }
    for (Procedure<Env> p : deletes) {
      b.delete(p.getProcId());
    }
    store.write(b.build());
    for (Procedure<Env> p : upserts) {
      p.refreshSnapshot();
    }
    for (Procedure<Env> p : deletes) {
      p.refreshSnapshot();
    }
  }

  /** The procedure's info if it is live, completed, or corrupt. */
  ProcedureInfo info(long procId) {
    Procedure<Env> p = procedures.get(procId);
    if (p != null) {
      return p.snapshot();
    }
    ProcedureInfo c = completed.get(procId);
    return c != null ? c : corrupt.get(procId);
  }

  List<ProcedureInfo> allInfos() {
    List<ProcedureInfo> out = new ArrayList<>();
    for (Procedure<Env> p : procedures.values()) {
      out.add(p.snapshot());
    }
    out.addAll(completed.all());
    out.addAll(corrupt.values());
    out.sort((a, b) -> Long.compare(a.procId(), b.procId()));
    return out;
  }

  /** A future completed when {@code procId} reaches a terminal state. */
  CompletableFuture<ProcedureInfo> finishFuture(long procId) {
    CompletableFuture<ProcedureInfo> f =
        finishWaiters.computeIfAbsent(procId, id -> new CompletableFuture<>());
    ProcedureInfo info = info(procId);
    if (info != null && info.finished()) {
      finishWaiters.remove(procId, f);
      f.complete(info);
    }
    return f;
  }

  void notifyFinished(ProcedureInfo info) {
    CompletableFuture<ProcedureInfo> f = finishWaiters.remove(info.procId());
    if (f != null) {
      f.complete(info);
    }
  }

  /** Wakes every waiter with the executor's stop (they may retry against a new executor). */
  void failWaiters(Throwable cause) {
    for (CompletableFuture<ProcedureInfo> f : finishWaiters.values()) {
      f.completeExceptionally(cause);
    }
    finishWaiters.clear();
  }
}
