package dev.baton.consensus.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.Predicate;

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
    return sum(dir, p -> true);
  }

  /** Bytes of the snapshot files below a node's storage {@code dir}. */
  static long snapshotBytes(Path dir) {
    return sum(dir, p -> p.getParent().getFileName().toString().equals(SNAPSHOT_DIR_NAME));
  }

  /**
   * Bytes of the regular files below {@code dir} that {@code which} accepts; a file Ratis removes
   * during the walk (a purged segment, an old snapshot) counts as nothing.
   */
  private static long sum(Path dir, Predicate<Path> which) {
    long[] total = {0};
    try {
      Files.walkFileTree(
          dir,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
              if (attrs.isRegularFile() && which.test(file)) {
                total[0] += attrs.size();
              }
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return total[0];
  }
}
