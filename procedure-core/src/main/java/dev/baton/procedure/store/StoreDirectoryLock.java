package dev.baton.procedure.store;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on a store directory, held while a store is running, so two stores (in this
 * process or another) never append to the same segments.
 */
final class StoreDirectoryLock implements Closeable {
  static final String LOCK_FILE = "store.lock";

  private final FileChannel channel;
  private final FileLock lock;

  private StoreDirectoryLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  static StoreDirectoryLock acquire(Path dir) throws IOException {
    Path file = dir.resolve(LOCK_FILE);
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
      throw new IOException(
          "procedure store directory "
              + dir
              + " is in use by another running store (lock "
              + file
              + "); stop that store first");
    }
    return new StoreDirectoryLock(channel, lock);
  }

  @Override
  public void close() throws IOException {
    try {
      lock.release();
    } finally {
      channel.close();
    }
  }
}
