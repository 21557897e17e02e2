package dev.baton.procedure.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of a {@link FileProcedureStore}, from {@code start()} to {@code stop()}: the directory
 * lock, the recovered index, the segment log, the queue of waiting writes and the writer thread. A
 * restart opens a new session, which reads everything back from disk.
 */
final class StoreSession {
  private static final Logger LOG = LoggerFactory.getLogger(StoreSession.class);

  private final Path dir;
  private final StoreDirectoryLock lock;
  private final SegmentLog log;
  private final StoreIndex index;
  private final GroupCommitQueue queue = new GroupCommitQueue();
  private final SegmentCleaner cleaner;
  private final StoreWriterThread writer;
  private volatile IOException failure;

  private StoreSession(
      Path dir,
      FileProcedureStore.Config config,
      StoreCounters counters,
      StoreDirectoryLock lock,
      SegmentLog log,
      StoreIndex index) {
    this.dir = dir;
    this.lock = lock;
    this.log = log;
    this.index = index;
    this.cleaner = new SegmentCleaner(log, index, config.compactionThreshold(), counters);
    this.writer =
        new StoreWriterThread(
            dir,
            queue,
            log,
            index,
            cleaner,
            config.maxGroupCommitRecords(),
            counters,
            this::markFailed);
  }

  /** Locks the directory, recovers the segments and starts the writer thread. */
  static StoreSession open(Path dir, FileProcedureStore.Config config, StoreCounters counters)
      throws IOException {
    DurableFiles.createPrivateDirectories(dir);
    StoreDirectoryLock lock = StoreDirectoryLock.acquire(dir);
    SegmentLog log = null;
    try {
      StoreRecovery.Result recovered = StoreRecovery.recover(dir);
      log =
          SegmentLog.open(
              dir,
              recovered.segmentIds(),
              config.segmentBytes(),
              config.fsync(),
              counters::countSync,
              recovered.index().maxProcId());
      StoreSession session = new StoreSession(dir, config, counters, lock, log, recovered.index());
      // Segments left with only history by a crash between a write and its cleanup go now.
      session.cleaner.afterDrain(0);
      session.writer.start();
      LOG.info(
          "Opened procedure store {}: {} live procedures, max procId {}, {} segments",
          dir,
          recovered.index().size(),
          recovered.index().maxProcId(),
          log.segmentCount());
      return session;
    } catch (IOException | RuntimeException e) {
      closeQuietly(log);
      closeQuietly(lock);
      throw e;
    }
  }

  StoreContents load() {
    return index.contents();
  }

  /** Hands the batch to the writer thread and waits until it is durable. */
  void write(StoreBatch batch) throws IOException {
    throwIfFailed();
    if (SegmentFormat.isNoOp(batch)) {
      return;
    }
    PendingWrite write = new PendingWrite(batch);
    if (!queue.offer(write)) {
      throwIfFailed();
      throw stopped();
    }
    write.await();
  }

  /**
   * Hands the batch to the writer thread; the future completes once it is durable, or with the
   * {@link IOException} {@link #write} would throw.
   */
  CompletableFuture<Void> writeAsync(StoreBatch batch) {
    try {
      throwIfFailed();
      if (SegmentFormat.isNoOp(batch)) {
        return CompletableFuture.completedFuture(null);
      }
      PendingWrite write = new PendingWrite(batch);
      if (!queue.offer(write)) {
        throwIfFailed();
        throw stopped();
      }
      return write.durable();
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Fails the queued writes, waits for the writer thread to finish the drain in progress, and
   * releases the files.
   */
  void close() {
    for (PendingWrite w : queue.close()) {
      w.fail(stopped());
    }
    boolean interrupted = false;
    while (writer.isAlive()) {
      try {
        writer.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    closeQuietly(log);
    closeQuietly(lock);
    LOG.info("Stopped procedure store {}", dir);
  }

  /** Called on the writer thread when a write failed: refuses and fails every later write. */
  private void markFailed(IOException cause) {
    failure = cause;
    for (PendingWrite w : queue.close()) {
      w.fail(cause);
    }
  }

  private void throwIfFailed() throws IOException {
    IOException cause = failure;
    if (cause != null) {
      throw new IOException(
          "procedure store "
              + dir
              + " failed earlier and accepts no writes; stop and start it to recover from disk",
          cause);
    }
  }

  private StoreStoppedException stopped() {
    return new StoreStoppedException(
        "procedure store " + dir + " is stopped; the write was not made durable");
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      LOG.warn("Error while closing {} of the procedure store", c, e);
    }
  }
}
