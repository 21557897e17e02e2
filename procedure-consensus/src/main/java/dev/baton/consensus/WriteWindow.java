package dev.baton.consensus;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * A bound on the writes a Ratis client has in flight, no larger than Ratis' own window. Ratis'
 * ordered async client blocks the calling thread in its send once its window is full, and a write
 * to a cluster without a majority is retried until the majority is back (see {@link
 * ProcedureClient}'s retry policy): a caller that went on writing through a long majority loss
 * would block there for the rest of it, every thread of a server that forwards submissions with it.
 * Here a write takes a place or fails at once with an error that says why. Its place comes back
 * when Ratis finishes the write, not when its caller stops waiting (Ratis still holds it then).
 */
final class WriteWindow {
  /** Writes in flight per client, at most; the client's Ratis window is set to the same. */
  static final int DEFAULT_SIZE = 1024;

  private final int size;
  private final Semaphore places;

  WriteWindow(int size) {
    if (size < 1) {
      throw new IllegalArgumentException("write window must be >= 1, got " + size);
    }
    this.size = size;
    this.places = new Semaphore(size);
  }

  /** Writes still held by Ratis now. */
  int inFlight() {
    return size - places.availablePermits();
  }

  /**
   * Starts {@code write} if a place is free, else fails at once; the returned future is the write's
   * own.
   */
  <T> CompletableFuture<T> send(Supplier<CompletableFuture<T>> write) {
    if (!places.tryAcquire()) {
      return CompletableFuture.failedFuture(
          new IOException(
              size
                  + " writes of this client are still unanswered: no leader, or no majority of the"
                  + " cluster reachable, for longer than their timeout. Try again later"));
    }
    CompletableFuture<T> sent;
    try {
      sent = write.get();
    } catch (RuntimeException | Error e) {
      places.release();
      throw e;
    }
    sent.whenComplete((reply, error) -> places.release());
    return sent;
  }
}
