package dev.baton.procedure;

import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How root procedures enter an executor: submitted here (persisted, synchronously or through the
 * store's {@code writeAsync}, then queued) or adopted from a record someone else made durable.
 * Nonces make a repeated submission return the first procId.
 */
final class Submissions<Env> {
  private final ExecutorContext<Env> ctx;

  /**
   * Submissions with a nonce whose first submitter has not persisted and queued its procedure yet:
   * a repeat of the nonce waits for that outcome instead of returning an id nothing can see yet (or
   * one whose submission then fails).
   */
  private final Map<NonceKey, CompletableFuture<Long>> pending = new ConcurrentHashMap<>();

  Submissions(ExecutorContext<Env> ctx) {
    this.ctx = ctx;
  }

  /**
   * Persists and queues a root procedure; see {@link ProcedureExecutor#submit(Procedure,NonceKey)}.
   */
  long submit(Procedure<Env> proc, NonceKey nonce) {
    CompletableFuture<Long> existing = prepare(proc, nonce);
    if (existing != null) {
      return first(existing);
    }
    try {
      ctx.persist(proc);
    } catch (IOException e) {
      throw notPersisted(proc, nonce, e);
    } catch (RuntimeException e) { // e.g. the procedure's own serializer: nothing was written
      notPersisted(proc, nonce, new IOException(e.toString(), e));
      throw e;
    }
    schedule(proc);
    settled(proc, nonce);
    ctx.metrics().submitted(proc.getType());
    return proc.getProcId();
  }

  /** The first submission's id once it is queued, or its failure. */
  private static long first(CompletableFuture<Long> existing) {
    try {
      return existing.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }

  /**
   * Like {@link #submit} without waiting for the store: the future completes with the procId once
   * the submission is durable and queued, or exceptionally with an {@link UncheckedIOException}.
   * Argument errors are thrown at once.
   */
  CompletableFuture<Long> submitAsync(Procedure<Env> proc, NonceKey nonce) {
    CompletableFuture<Long> existing = prepare(proc, nonce);
    if (existing != null) {
      return existing;
    }
    CompletableFuture<Void> durable;
    try {
      durable = ctx.writeAsync(List.of(proc));
    } catch (RuntimeException e) { // e.g. the procedure's own serializer: nothing was written
      notPersisted(proc, nonce, new IOException(e.toString(), e));
      throw e;
    }
    return durable.handle(
        (ok, failure) -> {
          if (failure != null) {
            Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause()
                    : failure;
            throw notPersisted(
                proc,
                nonce,
                cause instanceof IOException io ? io : new IOException(cause.toString(), cause));
          }
          schedule(proc);
          settled(proc, nonce);
          return proc.getProcId();
        });
  }

  /**
   * Checks and names a new root; if the nonce was seen before, returns the first submission's id
   * (completed once that one is queued, or failed with its failure), else null (the procedure then
   * has its id, type, times and RUNNABLE state, and its nonce is pending until {@link #settled} or
   * {@link #notPersisted}).
   */
  private CompletableFuture<Long> prepare(Procedure<Env> proc, NonceKey nonce) {
    String type =
        ctx.codec()
            .registry()
            .typeOf(proc)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "procedure class "
                            + proc.getClass().getName()
                            + " is not registered in the ProcedureRegistry"));
    if (proc.getProcId() != 0) {
      throw new IllegalArgumentException(proc + " was already submitted");
    }
    long procId;
    try {
      procId = ctx.ids().next();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "no procedure id could be reserved for " + type + ": " + e.getMessage(), e);
    }
    if (nonce != null) {
      CompletableFuture<Long> mine = new CompletableFuture<>();
      CompletableFuture<Long> inFlight = pending.putIfAbsent(nonce, mine);
      if (inFlight != null) {
        return inFlight;
      }
      // a procedure settled before (queued, so visible) keeps its nonce here until it is cleaned
      Long existing = ctx.nonces().putIfAbsent(nonce, procId);
      if (existing != null) {
        pending.remove(nonce, mine);
        mine.complete(existing);
        return mine;
      }
      proc.stored().setNonceKey(nonce);
    }
    proc.setType(type);
    proc.setProcId(procId);
    proc.setParent(Procedure.NO_PARENT, procId);
    proc.setSubmittedTime(ctx.now());
    proc.transitionTo(ProcedureState.RUNNABLE);
    return null;
  }

  private UncheckedIOException notPersisted(Procedure<Env> proc, NonceKey nonce, IOException e) {
    UncheckedIOException failure =
        new UncheckedIOException(
            "submission of " + proc.getType() + " could not be persisted: " + e.getMessage(), e);
    if (nonce != null) {
      ctx.nonces().remove(nonce, proc.getProcId());
      CompletableFuture<Long> mine = pending.remove(nonce);
      if (mine != null) {
        mine.completeExceptionally(failure);
      }
    }
    return failure;
  }

  /** The first submission of a nonce is queued: its repeats may have its id now. */
  private void settled(Procedure<Env> proc, NonceKey nonce) {
    if (nonce != null) {
      CompletableFuture<Long> mine = pending.remove(nonce);
      if (mine != null) {
        mine.complete(proc.getProcId());
      }
    }
  }

  /** See {@link ProcedureExecutor#adopt}. */
  boolean adopt(StoreRecord record) throws ProcedureCodecException {
    long procId = record.procId();
    ctx.ids().observe(procId);
    if (ctx.info(procId) != null) {
      return false;
    }
    @SuppressWarnings("unchecked")
    Procedure<Env> proc =
        (Procedure<Env>) ctx.codec().decode(procId, record.data(), record.parts());
    if (proc.getParentProcId() != Procedure.NO_PARENT
        || proc.getRootProcId() != procId
        || proc.getState() != ProcedureState.RUNNABLE
        || proc.stored().getStackIndexes().length != 0) {
      throw new ProcedureCodecException(
          "procedure " + procId + " cannot be adopted: it is not a new root (" + proc + ")");
    }
    if (proc.stored().getNonceKey() != null) {
      Long existing = ctx.nonces().putIfAbsent(proc.stored().getNonceKey(), procId);
      if (existing != null && existing != procId) {
        throw new ProcedureCodecException(
            "procedure "
                + procId
                + " repeats nonce "
                + proc.stored().getNonceKey()
                + " of procedure "
                + existing);
      }
    }
    proc.refreshSnapshot();
    schedule(proc);
    ctx.metrics().submitted(proc.getType());
    return true;
  }

  /** A new root in its own stack, registered, its deadline armed, queued at the back. */
  private void schedule(Procedure<Env> proc) {
    long procId = proc.getProcId();
    RootProcedureStack<Env> stack = new RootProcedureStack<>(procId);
    stack.addMember(proc);
    ctx.stacks().put(procId, stack);
    ctx.procedures().put(procId, proc);
    ctx.armProcedureDeadline(proc);
    ctx.scheduler().addBack(proc);
  }
}
