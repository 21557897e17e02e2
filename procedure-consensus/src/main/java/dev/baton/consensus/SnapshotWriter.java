package dev.baton.consensus;

import dev.baton.procedure.store.DurableFiles;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes {@link TableImage}s to snapshot files on one background thread: serialize (with the
 * image's CRC and the file's MD5 computed on the way), fsync, atomic rename, MD5 file, then the
 * storage's latest snapshot (which only ever moves forward). A write in progress can be cancelled;
 * a cancelled or failed write leaves no snapshot file behind (at most its tmp file, which nothing
 * reads).
 */
final class SnapshotWriter {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotWriter.class);

  /** Suffix of a snapshot file while it is written. */
  static final String TMP_SUFFIX = ".tmp";

  /** A test's hook, called after the tmp file is durable and before it is renamed. */
  interface Hook {
    /** May block (an interrupt cancels the write) or throw (a failed write). */
    void beforeRename(Path tmp, TermIndex at) throws IOException, InterruptedException;
  }

  private final SimpleStateMachineStorage storage;
  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "procedure-snapshot-writer");
            t.setDaemon(true);
            return t;
          });
  private final LatencyHistogram writeTimes = new LatencyHistogram();
  private volatile Hook hook;

  SnapshotWriter(SimpleStateMachineStorage storage) {
    this.storage = storage;
  }

  /** How long each successful write took, serialize to latest snapshot updated. */
  LatencyHistogram writeTimes() {
    return writeTimes;
  }

  void hook(Hook hook) {
    this.hook = hook;
  }

  /** Starts writing {@code image}; the write completes with the snapshot it made durable. */
  Write start(TableImage image) {
    Write write = new Write(image);
    thread.execute(write);
    return write;
  }

  /** Stops the thread once the queued writes are done (they are cancelled by the caller first). */
  void shutdown(long waitMillis) throws InterruptedException {
    thread.shutdown();
    if (!thread.awaitTermination(waitMillis, TimeUnit.MILLISECONDS)) {
      thread.shutdownNow();
    }
  }

  /** One snapshot file being written. */
  final class Write implements Runnable {
    private final TableImage image;
    private final CompletableFuture<SingleFileSnapshotInfo> done = new CompletableFuture<>();
    private Thread runner;
    private boolean cancelled;

    private Write(TableImage image) {
      this.image = image;
    }

    TermIndex at() {
      return image.at();
    }

    /** Completes when the write has ended, with the durable snapshot or why there is none. */
    CompletableFuture<SingleFileSnapshotInfo> done() {
      return done;
    }

    /** Makes the write stop as soon as it can, without renaming its file into place. */
    synchronized void cancel() {
      cancelled = true;
      if (runner != null) {
        runner.interrupt();
      }
    }

    private synchronized void checkNotCancelled(Path file) throws InterruptedIOException {
      if (cancelled) {
        throw new InterruptedIOException("snapshot " + file + " at " + image.at() + " cancelled");
      }
    }

    @Override
    public void run() {
      synchronized (this) {
        runner = Thread.currentThread();
      }
      Path file = storage.getSnapshotFile(image.at().getTerm(), image.at().getIndex()).toPath();
      long start = System.nanoTime();
      try {
        SingleFileSnapshotInfo info = write(file);
        writeTimes.recordNanos(System.nanoTime() - start);
        done.complete(info);
      } catch (IOException | InterruptedException | RuntimeException e) {
        boolean wasCancelled;
        synchronized (this) {
          wasCancelled = cancelled;
        }
        if (wasCancelled) {
          LOG.info("Snapshot {} at {} cancelled before it was renamed into place", file, at());
        } else {
          LOG.error(
              "Failed to write snapshot {} at {}; the previous snapshot stays the latest and the"
                  + " log is kept",
              file,
              at(),
              e);
        }
        done.completeExceptionally(e);
      } finally {
        synchronized (this) {
          runner = null;
        }
        Thread.interrupted(); // an interrupt meant for this write must not reach the next one
      }
    }

    private SingleFileSnapshotInfo write(Path file) throws IOException, InterruptedException {
      Path tmp = file.resolveSibling(file.getFileName() + TMP_SUFFIX);
      MessageDigest md5 = MD5FileUtil.newMD5();
      try {
        checkNotCancelled(file);
        try (FileChannel channel =
            FileChannel.open(
                tmp,
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
          OutputStream out = new DigestOutputStream(Channels.newOutputStream(channel), md5);
          image.writeTo(out);
          channel.force(true);
        }
        Hook h = hook;
        if (h != null) {
          h.beforeRename(tmp, image.at());
        }
        checkNotCancelled(file);
        DurableFiles.publish(tmp, file);
      } catch (IOException | InterruptedException | RuntimeException e) {
        Files.deleteIfExists(tmp);
        throw e;
      }
      MD5Hash digest = MD5Hash.newInstance(md5.digest());
      MD5FileUtil.saveMD5File(file.toFile(), digest);
      DurableFiles.syncDirectory(file.toAbsolutePath().getParent());
      SingleFileSnapshotInfo info =
          new SingleFileSnapshotInfo(new FileInfo(file, digest), image.at());
      storage.updateLatestSnapshot(info);
      LOG.info(
          "Took procedure snapshot {} at {} ({} procedures)",
          file.getFileName(),
          image.at(),
          image.recordCount());
      return info;
    }
  }
}
