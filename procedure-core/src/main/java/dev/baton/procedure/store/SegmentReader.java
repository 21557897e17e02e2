package dev.baton.procedure.store;

import com.google.protobuf.InvalidProtocolBufferException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Reads the records of one segment file by offset, and tells a torn tail from corruption followed
 * by valid data. Reads go through a read-ahead window, so a sequence of small records costs one
 * system call per window rather than two per record.
 */
final class SegmentReader {
  /** Bytes read at once when the window does not cover a request. */
  static final int READ_AHEAD_BYTES = 1 << 20;

  /**
   * The most payload bytes {@link #findValidRecordAfter} checksums while looking for a valid record
   * after a bad one. Torn tails are small and garbage rarely declares a plausible length, so this
   * is only reached on pathological files; then the reader refuses to guess.
   */
  static final long MAX_RESYNC_SCAN_BYTES = 256L << 20;

  /**
   * The outcome of reading one record: either a batch and the offset after the record, or the
   * problem found.
   *
   * @param batch the decoded batch, null if the record is bad
   * @param next the offset after the record, or -1 if its declared length does not fit the file
   * @param problem what is wrong, null if the record is good
   */
  record Probe(StoreBatch batch, long next, String problem, boolean cutOff) {
    boolean ok() {
      return problem == null;
    }
  }

  private final Path file;
  private final FileChannel channel;
  private final long size;
  private ByteBuffer window = ByteBuffer.allocate(0);
  private long windowStart;

  SegmentReader(Path file, FileChannel channel) throws IOException {
    this.file = file;
    this.channel = channel;
    this.size = channel.size();
  }

  long size() {
    return size;
  }

  /**
   * Reads and checks the record at {@code offset}.
   *
   * @throws NewerStoreFormatException if the record is whole but a newer Baton wrote it
   */
  Probe probe(long offset) throws IOException {
    long left = size - offset;
    if (left < SegmentFormat.HEADER_BYTES) {
      return cutOff(
          "only " + left + " bytes left, a record header needs " + SegmentFormat.HEADER_BYTES);
    }
    ByteBuffer header = bytesAt(offset, SegmentFormat.HEADER_BYTES);
    int length = header.getInt(header.position());
    int storedCrc = header.getInt(header.position() + Integer.BYTES);
    if (length < 1 || length > SegmentFormat.MAX_RECORD_BYTES) {
      return bad(
          -1, "record length " + length + " is outside 1.." + SegmentFormat.MAX_RECORD_BYTES);
    }
    long available = left - SegmentFormat.HEADER_BYTES;
    if (length > available) {
      return cutOff(
          "record length " + length + " runs past the end of the file (" + available + " left)");
    }
    long next = offset + SegmentFormat.HEADER_BYTES + length;
    ByteBuffer payloadView = bytesAt(offset + SegmentFormat.HEADER_BYTES, length);
    byte[] payload = new byte[length];
    payloadView.get(payload);
    int actualCrc = SegmentFormat.crc(payload, 0, length);
    if (actualCrc != storedCrc) {
      return bad(
          next,
          "checksum mismatch: stored "
              + Integer.toHexString(storedCrc)
              + ", computed "
              + Integer.toHexString(actualCrc));
    }
    try {
      return new Probe(SegmentFormat.decode(payload), next, null, false);
    } catch (NewerStoreFormatException e) {
      throw new NewerStoreFormatException(file, offset, e);
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      return bad(next, "checksum matches but the payload is not a valid store batch: " + e);
    }
  }

  /**
   * Looks for a valid record after the bad record at {@code badOffset}: first where the bad record
   * says the next one starts, then at every later byte offset (a corrupted length field hides the
   * next record's position).
   *
   * @return the offset of the first valid record found, or empty if the rest is a torn tail
   * @throws CorruptStoreException if the scan gives up before it can tell
   */
  OptionalLong findValidRecordAfter(long badOffset, Probe bad) throws IOException {
    if (bad.next() > 0 && bad.next() < size && probe(bad.next()).ok()) {
      return OptionalLong.of(bad.next());
    }
    long scanned = 0;
    for (long p = badOffset + 1; p + SegmentFormat.HEADER_BYTES < size; p++) {
      ByteBuffer header = bytesAt(p, Integer.BYTES);
      int length = header.getInt(header.position());
      if (length < 1 || length > size - p - SegmentFormat.HEADER_BYTES) {
        continue;
      }
      scanned += length;
      if (scanned > MAX_RESYNC_SCAN_BYTES) {
        throw new CorruptStoreException(
            file,
            badOffset,
            "bad record ("
                + bad.problem()
                + "), and the "
                + (size - badOffset)
                + " bytes after it are too many to check whether a valid record follows;"
                + " inspect the file, and move it aside only if losing the rest is acceptable");
      }
      if (probe(p).ok()) {
        return OptionalLong.of(p);
      }
    }
    return OptionalLong.empty();
  }

  private static Probe bad(long next, String problem) {
    return new Probe(null, next, problem, false);
  }

  /** The file ends inside this record: what an append cut short by a crash leaves. */
  private static Probe cutOff(String problem) {
    return new Probe(null, -1, problem, true);
  }

  /** A read-only view of {@code length} bytes at {@code offset}, positioned at the first byte. */
  private ByteBuffer bytesAt(long offset, int length) throws IOException {
    long windowEnd = windowStart + window.limit();
    if (offset < windowStart || offset + length > windowEnd) {
      fill(offset, (int) Math.min(Math.max(length, READ_AHEAD_BYTES), size - offset));
    }
    ByteBuffer view = window.asReadOnlyBuffer();
    int from = (int) (offset - windowStart);
    view.position(from).limit(from + length);
    return view;
  }

  private void fill(long offset, int length) throws IOException {
    if (window.capacity() < length) {
      window = ByteBuffer.allocate(length);
    }
    window.clear().limit(length);
    long position = offset;
    while (window.hasRemaining()) {
      int n = channel.read(window, position);
      if (n < 0) {
        throw new EOFException(
            file + " ended at offset " + position + " while reading; was it truncated meanwhile?");
      }
      position += n;
    }
    window.flip();
    windowStart = offset;
  }
}
