package dev.baton.procedure.store;

import java.io.IOException;

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
}
