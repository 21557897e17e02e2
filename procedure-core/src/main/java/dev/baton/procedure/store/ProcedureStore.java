package dev.baton.procedure.store;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * Durable storage of serialized procedures. The executor is the only writer; it hands the store
 * opaque records (a framework envelope produced by the executor) and reads them back on recovery.
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>{@link #write} is atomic (all of a batch or nothing survives a crash) and durable when it
 *       returns; it may be called from many threads at once (implementations batch concurrent
 *       writes).
 *   <li>{@link #load} returns the latest version of every live record, in ascending procId order,
 *       and the highest procId ever written or declared, also after the records were deleted, so
 *       ids are never reused.
 *   <li>A record may carry numbered parts beside its head ({@link RecordParts}): {@link #write}
 *       applies a parts delta to the stored record (parts it does not name keep their bytes), a
 *       record written without parts has none, and {@link #load} returns every record with its
 *       complete parts. A delta for a record the store holds no version of (and the batch does not
 *       write whole before it) is refused with an {@link IOException} naming the procedure (the
 *       file store fails, and refuses to open on such a record, rather than lose the parts).
 *   <li>{@link #start} and {@link #stop} may be called again on the same instance: a stopped store
 *       can be started again and sees what was written before.
 * </ul>
 */
public interface ProcedureStore {

  /** Opens the store. Idempotent. */
  void start() throws IOException;

  /** Closes the store; pending writes fail. Idempotent. */
  void stop();

  /** Whether {@link #start} succeeded and {@link #stop} has not been called since. */
  boolean isRunning();

  /** Reads back every live record. */
  StoreContents load() throws IOException;

  /** Writes a batch atomically and durably. */
  void write(StoreBatch batch) throws IOException;

  /**
   * Starts writing a batch atomically and durably; the future completes once it is durable (or
   * exceptionally with the {@link IOException} {@link #write} would have thrown). Lets a caller
   * hand over a write and go on with other work while the store groups it with others. Batches
   * handed over by one thread become durable in the order they were handed over. The default writes
   * synchronously on the calling thread; stores with a writer thread or a replication pipeline
   * override it.
   */
  default CompletableFuture<Void> writeAsync(StoreBatch batch) {
    try {
      write(batch);
      return CompletableFuture.completedFuture(null);
    } catch (IOException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Reserves {@code count} consecutive procedure ids for the caller and returns the first. The
   * caller knows every id up to {@code highestKnown} is taken. A store with a single writer (the
   * local stores) grants {@code highestKnown + 1}: the ids it hands out are recorded with each
   * batch's {@link StoreBatch#maxProcId()}. A replicated store records the reservation durably, so
   * ids handed out by other parties (submissions applied by a state machine) never fall inside it.
   */
  default long reserveProcIds(long highestKnown, int count) throws IOException {
    if (count < 1) {
      throw new IllegalArgumentException("count must be positive: " + count);
    }
    return highestKnown + 1;
  }
}
