package dev.baton.procedure.store;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * One caller's batch on its way to disk: the batch, its record framed on the caller's thread, and
 * the completion the caller waits on until the writer thread has made it durable.
 */
final class PendingWrite {
  private final StoreBatch batch;
  private final ByteBuffer frame;
  private final CompletableFuture<Void> done = new CompletableFuture<>();

  PendingWrite(StoreBatch batch) throws IOException {
    this.batch = batch;
    this.frame = SegmentFormat.encode(batch, batch.maxProcId());
  }

  StoreBatch batch() {
    return batch;
  }

  ByteBuffer frame() {
    return frame;
  }

  int frameBytes() {
    return frame.limit();
  }

  /** Completes once the batch is durable, or with the failure; a copy, for one caller. */
  CompletableFuture<Void> durable() {
    return done.copy();
  }

  /** The batch is durable. */
  void complete() {
    done.complete(null);
  }

  /** The batch failed; has no effect if it already completed. */
  void fail(IOException cause) {
    done.completeExceptionally(cause);
  }

  /**
   * Waits until the batch is durable.
   *
   * @throws StoreStoppedException if the store stopped before writing it
   * @throws InterruptedIOException if interrupted; the batch may or may not become durable
   * @throws IOException if the write failed
   */
  void await() throws IOException {
    try {
      done.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(
          "interrupted while waiting for a store write to become durable; "
              + batch
              + " may or may not be durable");
    } catch (ExecutionException e) {
      // A fresh exception per caller, so each one carries its own stack trace.
      Throwable cause = e.getCause();
      if (cause instanceof StoreStoppedException) {
        StoreStoppedException stopped = new StoreStoppedException(cause.getMessage());
        stopped.initCause(cause);
        throw stopped;
      }
      throw new IOException(cause.getMessage(), cause);
    }
  }
}
