package dev.baton.consensus;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers Ratis' {@code takeSnapshot()} calls (on its apply thread) without writing on that thread.
 *
 * <p>The index returned is what Ratis purges the log up to, so it is always that of a snapshot
 * already durable on disk, or -1 (Ratis then does nothing and asks again after its next applies):
 *
 * <ul>
 *   <li>no write in flight: freeze the table (a reference copy), start writing the image in the
 *       background, return -1;
 *   <li>a write in flight: return -1 at once;
 *   <li>a write finished: return its index, once; a failed one is logged by the writer and retried
 *       no sooner than {@link ConsensusWaits#SNAPSHOT_RETRY_BACKOFF} later (until then -1).
 * </ul>
 *
 * <p>While an explicit snapshot request (an operator's) is outstanding, every call writes a fresh
 * snapshot synchronously, after the write in flight, so the index Ratis replies to the requester
 * covers everything applied when it asked. When Ratis stops the server it asks once more; that
 * write goes to the background and {@link #close} waits for it, so it is durable too (were it lost,
 * the log still holds every entry after the previous snapshot).
 */
final class SnapshotTaker {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotTaker.class);

  private final SimpleStateMachineStorage storage;
  private final Supplier<TableImage> freezer;
  private final SnapshotWriter writer;
  private final AtomicInteger explicitRequests = new AtomicInteger();
  private final LatencyHistogram applyThreadBlocked = new LatencyHistogram();
  private SnapshotWriter.Write inFlight;
  private long retryAfterNanos;
  private boolean failedBefore;
  private boolean closed;

  /**
   * @param freezer an image of the table and the entry it includes, taken under the table's lock;
   *     null when nothing was applied yet
   */
  SnapshotTaker(SimpleStateMachineStorage storage, Supplier<TableImage> freezer) {
    this.storage = storage;
    this.freezer = freezer;
    this.writer = new SnapshotWriter(storage);
  }

  SnapshotWriter writer() {
    return writer;
  }

  /** How long each {@code takeSnapshot()} call held Ratis' apply thread. */
  LatencyHistogram applyThreadBlocked() {
    return applyThreadBlocked;
  }

  /**
   * Sends an explicit (operator's) snapshot request through Ratis; while it is outstanding, every
   * {@code takeSnapshot()} call writes synchronously (see the class comment).
   */
  CompletableFuture<Long> explicit(Supplier<CompletableFuture<Long>> request) {
    explicitRequests.incrementAndGet();
    CompletableFuture<Long> index;
    try {
      index = request.get();
    } catch (RuntimeException e) {
      index = CompletableFuture.failedFuture(e);
    }
    index.whenComplete((i, e) -> explicitRequests.decrementAndGet());
    return index;
  }

  /**
   * Ratis' {@code takeSnapshot()}; {@code running} is false while the state machine is paused (read
   * under this object's lock, so a write started here is one {@link #cancelInFlight} sees).
   */
  synchronized long take(BooleanSupplier running) throws IOException {
    long start = System.nanoTime();
    try {
      if (closed || !running.getAsBoolean()) {
        return -1;
      }
      return explicitRequests.get() > 0 ? takeNow() : takeInBackground(start);
    } finally {
      applyThreadBlocked.recordNanos(System.nanoTime() - start);
    }
  }

  private long takeInBackground(long now) {
    if (inFlight != null) {
      if (!inFlight.done().isDone()) {
        return -1;
      }
      SnapshotWriter.Write finished = inFlight;
      inFlight = null;
      if (!finished.done().isCompletedExceptionally()) {
        failedBefore = false;
        return finished.done().join().getIndex();
      }
      failedBefore = true;
      retryAfterNanos = now + ConsensusWaits.SNAPSHOT_RETRY_BACKOFF.toNanos();
      return -1;
    }
    if (failedBefore && now - retryAfterNanos < 0) {
      return -1;
    }
    long durable = durableIndex();
    TableImage image = imageNewerThan(durable);
    if (image == null) {
      return durable;
    }
    inFlight = writer.start(image);
    return -1;
  }

  /** An image of the table if it includes entries after {@code durable}; else null. */
  private TableImage imageNewerThan(long durable) {
    TableImage image = freezer.get();
    return image == null || image.at().getIndex() <= durable ? null : image;
  }

  /** Writes a fresh snapshot on the writer's thread and waits for it. */
  private long takeNow() throws IOException {
    awaitInFlight(false);
    long durable = durableIndex();
    TableImage image = imageNewerThan(durable);
    if (image == null) {
      return durable;
    }
    SnapshotWriter.Write write = writer.start(image);
    try {
      return write.done().get().getIndex();
    } catch (InterruptedException e) {
      write.cancel();
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while writing snapshot at " + image.at());
    } catch (ExecutionException e) {
      throw new IOException("snapshot at " + image.at() + " failed: " + e.getCause(), e.getCause());
    }
  }

  /**
   * Before a snapshot from the leader is installed: cancels the write in flight (its image is older
   * than the installed one) and waits until it has ended, so it cannot rename a file into the state
   * machine directory Ratis is about to replace.
   */
  synchronized void cancelInFlight() {
    awaitInFlight(true);
  }

  /** Waits (bounded) for the write in flight, then stops the writer. */
  synchronized void close() {
    closed = true;
    awaitInFlight(false);
    try {
      writer.shutdown(ConsensusWaits.SNAPSHOT_WRITE_WAIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void awaitInFlight(boolean cancel) {
    SnapshotWriter.Write write = inFlight;
    inFlight = null;
    if (write == null) {
      return;
    }
    if (cancel) {
      write.cancel();
    }
    try {
      write.done().get(ConsensusWaits.SNAPSHOT_WRITE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      // the writer logged it; the previous snapshot stays the latest
    } catch (TimeoutException e) {
      LOG.warn(
          "Snapshot at {} still not written after {}; cancelling it",
          write.at(),
          ConsensusWaits.SNAPSHOT_WRITE_WAIT);
      write.cancel();
    } catch (InterruptedException e) {
      write.cancel();
      Thread.currentThread().interrupt();
    }
  }

  /** The index of the newest durable snapshot, or -1. */
  private long durableIndex() {
    SingleFileSnapshotInfo latest = storage.getLatestSnapshot();
    return latest == null ? -1 : latest.getIndex();
  }
}
