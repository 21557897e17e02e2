package dev.baton.procedure.store;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An exclusive lock on a store directory, held while a store is running, so two stores (in this
 * process or another) never append to the same segments.
 *
 * <p>The operating system lock ({@link FileChannel#tryLock}) keeps other processes out. Stores in
 * this process are kept out by {@link #HELD} before any channel is opened: on POSIX systems,
 * closing any channel of the lock file releases every lock this process holds on it, so a second
 * store that opened the file, failed to lock it and closed it again would silently unlock the
 * running store's directory for other processes.
 */
final class StoreDirectoryLock implements Closeable {
  static final String LOCK_FILE = "store.lock";

  /** Lock files held by stores of this process. */
  private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;

  private StoreDirectoryLock(Path file, FileChannel channel, FileLock lock) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
  }

  static StoreDirectoryLock acquire(Path dir) throws IOException {
    // the real path: two spellings of one directory (a symlink, "..") are one lock
    Path file = dir.toRealPath().resolve(LOCK_FILE);
    if (!HELD.add(file)) {
      throw inUse(dir, file, "a running store of this process");
    }
    try {
      FileChannel channel =
          FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      } catch (IOException | RuntimeException e) {
        channel.close();
        throw e;
      }
      if (lock == null) {
        channel.close();
        throw inUse(dir, file, "another running store");
      }
      return new StoreDirectoryLock(file, channel, lock);
    } catch (IOException | RuntimeException e) {
      HELD.remove(file);
      throw e;
    }
  }

  private static IOException inUse(Path dir, Path file, String user) {
    return new IOException(
        "procedure store directory "
            + dir
            + " is in use by "
            + user
            + " (lock "
            + file
            + "); stop that store first");
  }

  @Override
  public void close() throws IOException {
    try {
      lock.release();
    } finally {
      try {
        channel.close();
      } finally {
        HELD.remove(file);
      }
    }
  }
}
