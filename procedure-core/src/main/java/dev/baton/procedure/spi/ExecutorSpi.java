package dev.baton.procedure.spi;

import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;

/**
 * The part of an executor that Baton's replication layer uses and applications must not: a
 * replicated state machine that applies a submission made on another node hands the stored record
 * to the leader's executor. Obtained from {@code ProcedureExecutor.spi()}; see the package
 * documentation.
 */
public interface ExecutorSpi {
  /**
   * Takes over a root procedure that someone else submitted and already made durable in this
   * executor's store. The record must be a new root: RUNNABLE, nothing executed. A procedure this
   * executor already knows is ignored, so adopting the same record twice is harmless.
   *
   * @return true if the procedure was adopted and queued, false if it was already known
   * @throws IOException a {@code ProcedureCodecException} if the record cannot be decoded or is not
   *     a new root
   * @throws IllegalStateException if the executor is not running
   */
  boolean adopt(StoreRecord record) throws IOException;
}
