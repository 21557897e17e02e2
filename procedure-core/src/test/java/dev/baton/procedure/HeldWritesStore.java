package dev.baton.procedure;

import dev.baton.procedure.store.ForwardingProcedureStore;
import dev.baton.procedure.store.InMemoryProcedureStore;
import dev.baton.procedure.store.StoreBatch;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;

/**
 * An in-memory store whose {@code writeAsync} holds each batch until the test releases it (applied
 * to the store then, in order), or fails it; synchronous writes pass at once. Shows what the
 * executor does while a pipelined write is not yet durable.
 */
final class HeldWritesStore extends ForwardingProcedureStore {
  private record Held(StoreBatch batch, CompletableFuture<Void> durable) {}

  private final Deque<Held> held = new ArrayDeque<>();

  HeldWritesStore() {
    super(new InMemoryProcedureStore());
  }

  @Override
  public CompletableFuture<Void> writeAsync(StoreBatch batch) {
    CompletableFuture<Void> durable = new CompletableFuture<>();
    synchronized (this) {
      held.addLast(new Held(batch, durable));
    }
    return durable;
  }

  synchronized int heldCount() {
    return held.size();
  }

  /** Makes the oldest held batch durable. */
  void releaseOldest() throws IOException {
    Held h;
    synchronized (this) {
      h = held.pollFirst();
    }
    delegate.write(h.batch());
    h.durable().complete(null);
  }

  /** Fails the oldest held batch (it is not applied). */
  void failOldest(IOException cause) {
    Held h;
    synchronized (this) {
      h = held.pollFirst();
    }
    h.durable().completeExceptionally(cause);
  }
}
