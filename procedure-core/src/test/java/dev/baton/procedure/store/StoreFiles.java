package dev.baton.procedure.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Test helpers around a file store: records, contents, and the segment files on disk. */
final class StoreFiles {
  private StoreFiles() {}

  static StoreRecord record(long procId, String data) {
    return new StoreRecord(procId, data.getBytes(StandardCharsets.UTF_8));
  }

  static StoreBatch upserts(StoreRecord... records) {
    StoreBatch.Builder b = StoreBatch.builder();
    for (StoreRecord r : records) {
      b.upsert(r);
    }
    return b.build();
  }

  static StoreBatch deletes(long... procIds) {
    StoreBatch.Builder b = StoreBatch.builder();
    for (long id : procIds) {
      b.delete(id);
    }
    return b.build();
  }

  /** The live records as procId to text, in the order load() returned them. */
  static Map<Long, String> contents(ProcedureStore store) throws IOException {
    Map<Long, String> out = new LinkedHashMap<>();
    for (StoreRecord r : store.load().records()) {
      String previous = out.put(r.procId(), new String(r.data(), StandardCharsets.UTF_8));
      assertEquals(null, previous, "load() returned procId " + r.procId() + " twice");
    }
    return out;
  }

  /** The segment files of {@code dir}, oldest first. */
  static List<Path> segments(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    for (long id : StoreRecovery.listSegments(dir)) {
      out.add(SegmentFormat.path(dir, id));
    }
    return out;
  }

  static Path lastSegment(Path dir) throws IOException {
    List<Path> all = segments(dir);
    return all.get(all.size() - 1);
  }

  /** Total bytes of the segment files of {@code dir}. */
  static long segmentBytes(Path dir) throws IOException {
    long total = 0;
    for (Path p : segments(dir)) {
      total += Files.size(p);
    }
    return total;
  }

  /** Every file of {@code dir} (name to content), to check that a failed start changed nothing. */
  static Map<String, byte[]> snapshot(Path dir) throws IOException {
    Map<String, byte[]> out = new TreeMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.toList()) {
        out.put(p.getFileName().toString(), Files.readAllBytes(p));
      }
    }
    return out;
  }

  /** Offsets of the records of a well-formed segment file, by walking the length headers. */
  static List<Long> recordOffsets(Path segment) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(segment));
    List<Long> offsets = new ArrayList<>();
    int offset = 0;
    while (offset < bytes.limit()) {
      offsets.add((long) offset);
      offset += SegmentFormat.HEADER_BYTES + bytes.getInt(offset);
    }
    assertEquals(bytes.limit(), offset, "records of " + segment + " do not end at its end");
    return offsets;
  }

  static void append(Path file, byte[] bytes) throws IOException {
    Files.write(file, bytes, StandardOpenOption.APPEND);
  }

  /** Flips every bit of the byte at {@code offset}. */
  static void flipByte(Path file, long offset) throws IOException {
    byte[] content = Files.readAllBytes(file);
    content[Math.toIntExact(offset)] ^= (byte) 0xFF;
    Files.write(file, content);
  }

  static void truncate(Path file, long size) throws IOException {
    try (var channel = java.nio.channels.FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(size);
    }
  }

  /** A framed record as the store writes it, for appending whole or in part. */
  static byte[] frame(StoreBatch batch) throws IOException {
    ByteBuffer frame = SegmentFormat.encode(batch, batch.maxProcId());
    byte[] out = new byte[frame.remaining()];
    frame.get(out);
    return out;
  }
}
