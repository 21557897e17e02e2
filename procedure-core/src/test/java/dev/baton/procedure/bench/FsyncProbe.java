package dev.baton.procedure.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * The disk's own price of durability: one thread appending small records to a file and forcing
 * each, as the store's writer does, without the store. Sets the file-store figures in proportion.
 */
final class FsyncProbe {
  /** Appends (each forced) the probe makes. */
  static final int APPENDS = 500;

  /** Bytes per append: about one framed procedure record. */
  private static final int RECORD_BYTES = 256;

  private FsyncProbe() {}

  /** Median microseconds of one append plus {@code force(false)} in {@code dir}. */
  static double medianMicros(Path dir) throws IOException {
    Path file = Files.createTempFile(dir, "fsync-probe-", ".log");
    long[] nanos = new long[APPENDS];
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ByteBuffer record = ByteBuffer.allocate(RECORD_BYTES);
      for (int i = 0; i < APPENDS; i++) {
        record.clear();
        long t0 = System.nanoTime();
        while (record.hasRemaining()) {
          channel.write(record);
        }
        channel.force(false);
        nanos[i] = System.nanoTime() - t0;
      }
    } finally {
      Files.deleteIfExists(file);
    }
    Arrays.sort(nanos);
    return nanos[APPENDS / 2] / 1e3;
  }
}
