package dev.baton.procedure;

import dev.baton.procedure.store.StoreBatch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the timeout thread does with each deadline that passed: queue the procedure whose wait,
 * timeout or retry backoff ended, end an expired lock wait, or run the periodic cleaner of
 * completed procedures.
 */
final class ExpiredDeadlines<Env> {
  private static final Logger LOG = LoggerFactory.getLogger(ExpiredDeadlines.class);

  /** Most deletes in one store write of the cleaner (keeps a record far below any size limit). */
  static final int MAX_DELETES_PER_WRITE = 1024;

  private final ExecutorContext<Env> ctx;

  ExpiredDeadlines(ExecutorContext<Env> ctx) {
    this.ctx = ctx;
  }

  /** Called on the timeout thread for each expired deadline. */
  void onTimeout(TimeoutQueue.Entry entry) {
    if (!ctx.isRunning()) {
      return;
    }
    switch (entry.kind()) {
      case CLEAN_COMPLETED -> {
        cleanCompleted();
        ctx.timeouts()
            .add(
                ctx.now() + ctx.config().cleanerPeriod().toMillis(),
                TimeoutQueue.Kind.CLEAN_COMPLETED,
                null);
      }
      case WAIT_EXPIRED, PROCEDURE_DEADLINE -> {
        entry.proc().signals().fireTimeout();
        ctx.scheduler().addFront(entry.proc());
      }
      case RETRY_STEP, RETRY_ROLLBACK -> ctx.scheduler().addFront(entry.proc());
      case LOCK_WAIT_EXPIRED -> ctx.admission().lockWaitExpired(entry.proc());
    }
  }

  /**
   * Deletes completed roots past their retention, with their members, from the store and forgets
   * them. The deletes go to the store in batches of about {@link #MAX_DELETES_PER_WRITE} records (a
   * tree is never split), not one write per root: each write may cost a disk force, and this runs
   * on the timeout thread, which fires no deadline while it waits. A batch that fails is kept
   * (retained and queryable) for the next round. Trees whose final write deleted their records
   * (retention zero) are only forgotten.
   */
  void cleanCompleted() {
    List<CompletedProcedureRetainer.Completed> expired = new ArrayList<>();
    for (CompletedProcedureRetainer.Completed c : ctx.completed().expired(ctx.now())) {
      if (c.stored()) {
        expired.add(c);
      } else {
        forget(c); // its final write deleted its records already
      }
    }
    int from = 0;
    while (from < expired.size()) {
      int to = from;
      int records = 0;
      while (to < expired.size() && (to == from || records < MAX_DELETES_PER_WRITE)) {
        records += CompletedProcedureRetainer.recordCount(expired.get(to++));
      }
      List<CompletedProcedureRetainer.Completed> chunk = expired.subList(from, to);
      from = to;
      StoreBatch.Builder batch = StoreBatch.builder().maxProcId(ctx.ids().highest());
      for (CompletedProcedureRetainer.Completed c : chunk) {
        batch.delete(c.root().procId());
        for (long member : c.memberIds()) {
          batch.delete(member);
        }
      }
      try {
        ctx.store().write(batch.build());
      } catch (IOException e) {
        LOG.warn(
            "cleaner could not delete {} completed procedures (procedure {} among them): {};"
                + " will retry",
            chunk.size(),
            chunk.get(0).root().procId(),
            e.getMessage());
        return;
      }
      for (CompletedProcedureRetainer.Completed c : chunk) {
        forget(c);
      }
    }
  }

  private void forget(CompletedProcedureRetainer.Completed c) {
    ctx.completed().remove(c);
    if (c.nonce() != null) {
      ctx.nonces().remove(c.nonce(), c.root().procId());
    }
  }
}
