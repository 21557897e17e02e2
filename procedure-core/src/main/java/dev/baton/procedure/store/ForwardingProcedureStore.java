package dev.baton.procedure.store;

import java.io.IOException;

/**
 * A store that hands its lifecycle, loads and writes to another; a wrapper overrides what it
 * changes (a write that counts, records, blocks or fails). {@link #writeAsync} and {@link
 * #reserveProcIds} keep the interface's defaults, so they go through this store's {@link #write}.
 */
public abstract class ForwardingProcedureStore implements ProcedureStore {
  /** The store everything is handed to. */
  protected final ProcedureStore delegate;

  protected ForwardingProcedureStore(ProcedureStore delegate) {
    this.delegate = delegate;
  }

  @Override
  public void start() throws IOException {
    delegate.start();
  }

  @Override
  public void stop() {
    delegate.stop();
  }

  @Override
  public boolean isRunning() {
    return delegate.isRunning();
  }

  @Override
  public StoreContents load() throws IOException {
    return delegate.load();
  }

  @Override
  public void write(StoreBatch batch) throws IOException {
    delegate.write(batch);
  }
}
