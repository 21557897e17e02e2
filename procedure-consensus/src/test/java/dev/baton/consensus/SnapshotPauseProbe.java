package dev.baton.consensus;

import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreRecord;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.util.MD5FileUtil;

/**
 * How long a snapshot holds Ratis' apply thread with and without the background writer: the whole
 * write (serialize, fsync, rename and MD5 under the table's lock) against the freeze the apply
 * thread does (a reference copy under the lock), with 10,000 and 100,000 records. Prints medians
 * and maxima and their ratio. Run: {@code mvn -B -o -q -pl procedure-consensus -am test-compile
 * exec:java@snapshot-pause}.
 */
public final class SnapshotPauseProbe {
  /** Bytes per record, about a small procedure's serialized envelope. */
  static final int RECORD_BYTES = 256;

  static final int[] SIZES = {10_000, 100_000};
  static final int FREEZE_RUNS = 50;
  static final int WRITE_RUNS = 5;
  static final long NANOS_PER_MILLI = 1_000_000;

  private SnapshotPauseProbe() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("snapshot-pause");
    try {
      for (int size : SIZES) {
        ProcedureTable table = filled(size);
        long[] freeze = new long[FREEZE_RUNS];
        for (int i = 0; i < FREEZE_RUNS; i++) {
          long start = System.nanoTime();
          table.freeze(TermIndex.valueOf(1, i));
          freeze[i] = System.nanoTime() - start;
        }
        long[] write = new long[WRITE_RUNS];
        for (int i = 0; i < WRITE_RUNS; i++) {
          long start = System.nanoTime();
          writeUnderLock(table, dir.resolve("snapshot.1_" + i));
          write[i] = System.nanoTime() - start;
        }
        Arrays.sort(freeze);
        Arrays.sort(write);
        double freezeMedian = millis(freeze[FREEZE_RUNS / 2]);
        double writeMedian = millis(write[WRITE_RUNS / 2]);
        System.out.printf(
            "%,d records of %d bytes: apply thread blocked per snapshot before (synchronous write)"
                + " median %.2f ms max %.2f ms; after (freeze) median %.3f ms max %.3f ms;"
                + " before/after %.0fx%n",
            size,
            RECORD_BYTES,
            writeMedian,
            millis(write[WRITE_RUNS - 1]),
            freezeMedian,
            millis(freeze[FREEZE_RUNS - 1]),
            writeMedian / freezeMedian);
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static ProcedureTable filled(int size) {
    ProcedureTable table = new ProcedureTable();
    StoreBatch.Builder batch = StoreBatch.builder();
    for (long id = 1; id <= size; id++) {
      byte[] data = new byte[RECORD_BYTES];
      Arrays.fill(data, (byte) id);
      batch.upsert(new StoreRecord(id, data));
    }
    table.apply(batch.maxProcId(size).build().toProto());
    return table;
  }

  /** A snapshot written on the apply thread without the background writer: all under the lock. */
  private static void writeUnderLock(ProcedureTable table, Path file) throws Exception {
    synchronized (table) {
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      try (OutputStream out = Files.newOutputStream(tmp)) {
        table.writeSnapshot(out);
      }
      try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        channel.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
    MD5FileUtil.computeAndSaveMd5ForFile(file.toFile());
  }

  private static double millis(long nanos) {
    return (double) nanos / NANOS_PER_MILLI;
  }
}
