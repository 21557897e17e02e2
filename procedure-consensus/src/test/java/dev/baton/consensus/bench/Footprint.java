package dev.baton.consensus.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** What live procedures cost: heap of this JVM after a full GC, bytes of a node's storage. */
final class Footprint {
  /** Full collections before reading the heap (one can leave garbage a finalizer revived). */
  static final int GC_ROUNDS = 3;

  /** Ratis keeps the state machine's snapshots in a directory of this name. */
  static final String SNAPSHOT_DIR_NAME = "sm";

  private Footprint() {}

  /** Heap in use after {@link #GC_ROUNDS} full collections. */
  static long usedHeapAfterGc() {
    for (int i = 0; i < GC_ROUNDS; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Bytes of every file below {@code dir}. */
  static long bytes(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(Footprint::size).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Bytes of the snapshot files below a node's storage {@code dir}. */
  static long snapshotBytes(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .filter(p -> p.getParent().getFileName().toString().equals(SNAPSHOT_DIR_NAME))
          .mapToLong(Footprint::size)
          .sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long size(Path p) {
    try {
      return Files.size(p);
    } catch (IOException e) {
      return 0; // removed meanwhile (a purged segment, an old snapshot)
    }
  }
}
