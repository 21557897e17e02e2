package dev.baton.procedure.bench;

import dev.baton.procedure.store.ForwardingProcedureStore;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.StoreBatch;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/** A {@link ProcedureStore} that counts the writes it passes on to the store it wraps. */
final class CountingStore extends ForwardingProcedureStore {
  private final LongAdder writes = new LongAdder();
  private final LongAdder deleteOnlyWrites = new LongAdder();

  CountingStore(ProcedureStore delegate) {
    super(delegate);
  }

  ProcedureStore delegate() {
    return delegate;
  }

  /** Batches written (each one store update, however many records it holds). */
  long writes() {
    return writes.sum();
  }

  /** Batches that only deleted records: the executor's cleaner removing completed procedures. */
  long deleteOnlyWrites() {
    return deleteOnlyWrites.sum();
  }

  @Override
  public void write(StoreBatch batch) throws IOException {
    delegate.write(batch);
    count(batch);
  }

  @Override
  public CompletableFuture<Void> writeAsync(StoreBatch batch) {
    return delegate.writeAsync(batch).thenRun(() -> count(batch));
  }

  private void count(StoreBatch batch) {
    writes.increment();
    if (batch.upserts().isEmpty() && batch.deleteCount() > 0) {
      deleteOnlyWrites.increment();
    }
  }
}
