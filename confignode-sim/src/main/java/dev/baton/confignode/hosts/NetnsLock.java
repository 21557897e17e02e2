package dev.baton.confignode.hosts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The machine-wide right to build hosts: one set of them at a time, since they share one address
 * slice and the root namespace's route to it, and leftovers are removed by name prefix. A file lock
 * (released by the kernel when its process dies, so a crashed run's lock does not stay) guards
 * other processes, a semaphore this one.
 */
final class NetnsLock implements AutoCloseable {
  /** The lock file. */
  static final Path FILE = Path.of(System.getProperty("java.io.tmpdir"), "baton-netns.lock");

  /** How long to wait for another run to finish before giving up. */
  static final Duration WAIT = Duration.ofMinutes(3);

  private static final Semaphore IN_THIS_PROCESS = new Semaphore(1);

  private final FileChannel channel;
  private final FileLock lock;

  private NetnsLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /** Waits up to {@link #WAIT} for the lock. */
  static NetnsLock acquire() throws InterruptedException {
    long start = System.nanoTime();
    if (!IN_THIS_PROCESS.tryAcquire(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
      throw busy();
    }
    FileChannel channel = null;
    try {
      channel = FileChannel.open(FILE, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileChannel locking = channel;
      FutureTask<FileLock> waiting = new FutureTask<>(locking::lock);
      Thread waiter = new Thread(waiting, "netns-lock");
      waiter.setDaemon(true);
      waiter.start();
      long left = WAIT.toNanos() - (System.nanoTime() - start);
      try {
        return new NetnsLock(channel, waiting.get(Math.max(0, left), TimeUnit.NANOSECONDS));
      } catch (TimeoutException e) {
        waiting.cancel(true); // interrupting the wait closes the channel
        throw busy();
      } catch (ExecutionException e) {
        throw new UncheckedIOException(
            "could not lock " + FILE,
            e.getCause() instanceof IOException io ? io : new IOException(e.getCause()));
      }
    } catch (IOException e) {
      release(channel);
      throw new UncheckedIOException("could not lock " + FILE, e);
    } catch (InterruptedException | RuntimeException e) {
      release(channel);
      throw e;
    }
  }

  private static IllegalStateException busy() {
    return new IllegalStateException(
        "another run of hosts in network namespaces still holds "
            + FILE
            + " after "
            + WAIT.toSeconds()
            + " s; one run at a time");
  }

  private static void release(FileChannel channel) {
    try {
      if (channel != null) {
        channel.close();
      }
    } catch (IOException ignored) {
      // closing releases the lock; nothing else to do
    } finally {
      IN_THIS_PROCESS.release();
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException ignored) {
      // the channel's close below releases it too
    }
    release(channel);
  }
}
