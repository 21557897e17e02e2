package dev.baton.procedure;

import dev.baton.procedure.scheduler.LockManager;
import dev.baton.procedure.scheduler.ProcedureLimiter;
import dev.baton.procedure.scheduler.ProcedureScheduler;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.RecordParts;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state one executor's parts share: live procedures, root stacks, nonces, the completed
 * retainer, the timeout queue, locks and limits ({@link AdmissionControl}), and the store with the
 * helpers that persist procedures. Owned by one {@link ProcedureExecutor}; a restart builds a new
 * one.
 */
final class ExecutorContext<Env> {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutorContext.class);

  /**
   * Most encoded bytes of one batch of {@link #writeSeparately}: a quarter of what Baton's
   * replicated store puts in one log entry (1 MiB), so it packs several batches into one entry.
   */
  static final int MAX_SEPARATE_BATCH_BYTES = 1 << 18;

  private final Env env;
  private final ProcedureStore store;
  private final ProcedureCodec codec;
  private final ProcedureScheduler scheduler;
  private final ExecutorConfig config;
  private final LongSupplier clock;
  private final Map<Long, Procedure<Env>> procedures = new ConcurrentHashMap<>();
  private final Map<Long, RootProcedureStack<Env>> stacks = new ConcurrentHashMap<>();
  private final Map<NonceKey, Long> nonces = new ConcurrentHashMap<>();
  private final Map<Long, ProcedureInfo> corrupt = new ConcurrentHashMap<>();
  private final CompletedProcedureRetainer completed = new CompletedProcedureRetainer();
  private final TimeoutQueue timeouts;
  private final ProcIdAllocator ids;
  private final AdmissionControl<Env> admission;
  private final ProcedureMetrics metrics;
  private final Map<Long, CompletableFuture<ProcedureInfo>> finishWaiters =
      new ConcurrentHashMap<>();
  private final Consumer<Throwable> fatal;
  private volatile boolean running;

  ExecutorContext(
      Env env,
      ProcedureStore store,
      ProcedureCodec codec,
      ProcedureScheduler scheduler,
      ExecutorConfig config,
      LongSupplier clock,
      Consumer<Throwable> fatal,
      LockManager locks,
      ProcedureLimiter limiter,
      ProcedureMetrics metrics,
      DeadlockPolicy deadlocks) {
    this.env = env;
    this.store = store;
    this.codec = codec;
    this.scheduler = scheduler;
    this.config = config;
    this.clock = clock;
    this.timeouts = new TimeoutQueue(clock);
    this.fatal = fatal;
    this.ids = new ProcIdAllocator(store);
    this.admission = new AdmissionControl<>(this, locks, limiter, deadlocks);
    this.metrics = metrics;
  }

  /** The environment procedures act on. */
  Env env() {
    return env;
  }

  ProcedureStore store() {
    return store;
  }

  ProcedureCodec codec() {
    return codec;
  }

  /** The queue workers poll. */
  ProcedureScheduler scheduler() {
    return scheduler;
  }

  ExecutorConfig config() {
    return config;
  }

  /** Live procedures by procId. */
  Map<Long, Procedure<Env>> procedures() {
    return procedures;
  }

  /** Root stacks of live trees by root procId. */
  Map<Long, RootProcedureStack<Env>> stacks() {
    return stacks;
  }

  /** The procId each live or retained nonce submitted. */
  Map<NonceKey, Long> nonces() {
    return nonces;
  }

  /** Procedures recovery could not read, by procId. */
  Map<Long, ProcedureInfo> corrupt() {
    return corrupt;
  }

  CompletedProcedureRetainer completed() {
    return completed;
  }

  TimeoutQueue timeouts() {
    return timeouts;
  }

  ProcIdAllocator ids() {
    return ids;
  }

  /** Locks and per-type limits. */
  AdmissionControl<Env> admission() {
    return admission;
  }

  ProcedureMetrics metrics() {
    return metrics;
  }

  /** Whether steps may start and be recorded (false once stopping or failed). */
  boolean isRunning() {
    return running;
  }

  void setRunning(boolean on) {
    running = on;
  }

  /**
   * Arms the procedure-level deadline of {@code proc} (measured from submission), if it has one.
   */
  void armProcedureDeadline(Procedure<Env> proc) {
    if (proc.getTimeout() > 0) {
      timeouts.add(
          proc.getSubmittedTime() + proc.getTimeout(), TimeoutQueue.Kind.PROCEDURE_DEADLINE, proc);
    }
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
    StoreBatch batch = encode(upserts, deletes);
    long start = System.nanoTime();
    try {
      store.write(batch);
    } catch (IOException | RuntimeException e) {
      metrics.storeWriteFailed();
      throw e;
    }
    metrics.storeWritten(System.nanoTime() - start);
    refreshSnapshots(upserts, deletes);
  }

  /**
   * Starts persisting {@code upserts}; the future completes once they are durable (snapshots
   * refreshed) or with the store's failure.
   */
  CompletableFuture<Void> writeAsync(Collection<Procedure<Env>> upserts) {
    StoreBatch batch;
    try {
      batch = encode(upserts, List.of());
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    return timedWriteAsync(batch).thenRun(() -> refreshSnapshots(upserts, List.of()));
  }

  /** Writes the update and runs what follows it, on this thread. */
  void apply(StepUpdate<Env> update) throws IOException {
    write(update.upserts(), update.deletes());
    update.then().run();
  }

  /**
   * Applies the update without waiting for the store when called on a worker ({@link
   * WritePipeline#current()}): the write is handed to {@link ProcedureStore#writeAsync} and true
   * returned at once; once it is durable, the pool's completion thread runs what follows it and
   * then {@code release} (also when the write failed, which stops the executor). Elsewhere, or when
   * the write was durable at once, it is applied as {@link #apply} does and false returned: the
   * caller releases.
   */
  boolean applyPipelined(StepUpdate<Env> update, Runnable release) throws IOException {
    WritePipeline pipeline = WritePipeline.current();
    if (pipeline == null) {
      apply(update);
      return false;
    }
    CompletableFuture<Void> durable = timedWriteAsync(encode(update.upserts(), update.deletes()));
    if (durable.isDone()) {
      try {
        durable.join();
      } catch (CompletionException e) {
        throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
      }
      refreshSnapshots(update.upserts(), update.deletes());
      update.then().run();
      return false;
    }
    pipeline.add(durable, failure -> afterPipelinedWrite(update, failure, release));
    return true;
  }

  /** Hands {@code batch} to the store; reports its latency or failure when it completes. */
  private CompletableFuture<Void> timedWriteAsync(StoreBatch batch) {
    long start = System.nanoTime();
    CompletableFuture<Void> durable;
    try {
      durable = store.writeAsync(batch);
    } catch (RuntimeException e) {
      metrics.storeWriteFailed();
      throw e;
    }
    durable.whenComplete(
        (ok, failure) -> {
          if (failure != null) {
            metrics.storeWriteFailed();
          } else {
            metrics.storeWritten(System.nanoTime() - start);
          }
        });
    return durable;
  }

  private void afterPipelinedWrite(StepUpdate<Env> update, Throwable failure, Runnable release) {
    try {
      if (failure != null) {
        if (running) {
          fail(failure);
        }
        return;
      }
      refreshSnapshots(update.upserts(), update.deletes());
      update.then().run();
    } catch (IOException e) {
      if (running) {
        fail(e);
      }
    } catch (RuntimeException e) {
      LOG.error("executor error after a store write of {}; stopping the executor", update, e);
      fail(e);
    } finally {
      release.run();
    }
  }

  /**
   * Persists {@code upserts}, each record standing on its own rather than all of them atomically:
   * in batches of at most {@link #MAX_SEPARATE_BATCH_BYTES} encoded bytes (one batch for most
   * calls; a larger record goes alone), all handed to the store at once and awaited together, so
   * the store groups them (one force of a file store, few entries of a replicated one). Snapshots
   * are refreshed once every batch is durable; the first failure is thrown.
   */
  void writeSeparately(List<Procedure<Env>> upserts) throws IOException {
    long now = now();
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    StoreBatch.Builder batch = StoreBatch.builder().maxProcId(ids.highest());
    int batchRecords = 0;
    long batchBytes = 0;
    for (Procedure<Env> p : upserts) {
      StoreRecord record = encodeRecord(p, now);
      if (batchRecords > 0 && batchBytes + record.bytes() > MAX_SEPARATE_BATCH_BYTES) {
        writes.add(timedWriteAsync(batch.build()));
        batch = StoreBatch.builder().maxProcId(ids.highest());
        batchRecords = 0;
        batchBytes = 0;
      }
      batch.upsert(record);
      batchRecords++;
      batchBytes += record.bytes();
    }
    if (batchRecords > 0) {
      writes.add(timedWriteAsync(batch.build()));
    }
    try {
      CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0])).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while writing " + upserts.size() + " records");
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    }
    refreshSnapshots(upserts, List.of());
  }

  private StoreBatch encode(Collection<Procedure<Env>> upserts, Collection<Procedure<Env>> deletes)
      throws IOException {
    long now = now();
    StoreBatch.Builder b = StoreBatch.builder().maxProcId(ids.highest());
    for (Procedure<Env> p : upserts) {
      b.upsert(encodeRecord(p, now));
    }
    for (Procedure<Env> p : deletes) {
      b.delete(p.getProcId());
    }
    return b.build();
  }

  /** The record of {@code proc}, last updated at {@code now}. */
  private StoreRecord encodeRecord(Procedure<Env> proc, long now) throws IOException {
    proc.setLastUpdate(now);
    RecordParts parts = proc.takePartsToPersist(); // may set the result the head carries
    return new StoreRecord(proc.getProcId(), codec.encode(proc, config.term()), parts);
  }

  private static <Env> void refreshSnapshots(
      Collection<Procedure<Env>> upserts, Collection<Procedure<Env>> deletes) {
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
    // a tree that finishes meanwhile is added to the completed ones before it leaves the live
    // ones: read in this order, it may show up in both, never in neither; its final view wins
    Map<Long, ProcedureInfo> byId = new TreeMap<>();
    for (Procedure<Env> p : procedures.values()) {
      byId.put(p.getProcId(), p.snapshot());
    }
    for (ProcedureInfo done : completed.all()) {
      byId.put(done.procId(), done);
    }
    for (ProcedureInfo bad : corrupt.values()) {
      byId.put(bad.procId(), bad);
    }
    return new ArrayList<>(byId.values());
  }

  /** See {@link ProcedureExecutor#census()}. */
  ExecutorCensus census() {
    Map<ProcedureState, Integer> byState = new EnumMap<>(ProcedureState.class);
    for (ProcedureState s : ProcedureState.values()) {
      if (s != ProcedureState.SUCCESS && s != ProcedureState.ROLLEDBACK) {
        byState.put(s, 0);
      }
    }
    Map<WaitCategory, Integer> blocked = new EnumMap<>(WaitCategory.class);
    for (WaitCategory c : WaitCategory.values()) {
      blocked.put(c, 0);
    }
    Map<String, Long> oldest = new HashMap<>();
    for (Procedure<Env> p : procedures.values()) {
      byState.merge(p.getState(), 1, Integer::sum);
      WaitCategory c = admission.waitCategory(p);
      if (c != null) {
        blocked.merge(c, 1, Integer::sum);
      }
      oldest.merge(p.getType(), p.getSubmittedTime(), Math::min);
    }
    return new ExecutorCensus(byState, blocked, oldest, now());
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
