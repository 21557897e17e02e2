package dev.baton.consensus;

import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands applied submissions to the leader's running executor, and answers applied aborts, in log
 * order on one thread of their own: never on Ratis' apply thread, which sends a submission's reply
 * only once the apply returns (a slow adoption would delay every reply behind it).
 */
final class Adoptions {
  private static final Logger LOG = LoggerFactory.getLogger(Adoptions.class);

  private final String nodeId;
  private final ExecutorService thread;

  Adoptions(String nodeId) {
    this.nodeId = nodeId;
    this.thread =
        Executors.newSingleThreadExecutor(
            LeadershipManager.daemon("baton-" + nodeId + "-adoption"));
  }

  /** Adopts the record into the executor on the adoption thread, after earlier adoptions. */
  void adoptLater(ProcedureExecutor<?> executor, StoreRecord record) {
    try {
      thread.execute(() -> adoptNow(executor, record));
    } catch (RejectedExecutionException closing) {
      // the node shuts down; the next leader finds the submission in the table
    }
  }

  /**
   * Once {@code ready} completes, computes {@code answer} on the adoption thread (so after every
   * adoption queued before); fails if {@code ready} does.
   */
  <T> CompletableFuture<T> after(CompletableFuture<Void> ready, Supplier<T> answer) {
    return ready.thenApplyAsync(v -> answer.get(), thread);
  }

  /** Adopts the record into the executor now; a record it cannot run is logged, not thrown. */
  void adoptNow(ProcedureExecutor<?> executor, StoreRecord record) {
    try {
      executor.spi().adopt(record);
    } catch (IOException e) {
      // a ProcedureCodecException: the record cannot be decoded or is not a new root
      LOG.error(
          "Node {}: submitted procedure {} cannot run: {}",
          nodeId,
          record.procId(),
          e.getMessage());
    } catch (IllegalStateException stopped) {
      // the executor stopped meanwhile; the next executor finds the submission in the table
    }
  }

  void shutdown() {
    thread.shutdown();
  }
}
