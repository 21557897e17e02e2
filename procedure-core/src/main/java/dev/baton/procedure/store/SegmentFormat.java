package dev.baton.procedure.store;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.baton.procedure.proto.StoreBatchProto;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.zip.CRC32C;

/**
 * The on-disk format of {@link FileProcedureStore}: segment file names and record framing.
 *
 * <p>A segment is a sequence of records {@code [int length][int crc32c][payload]} (big-endian),
 * where the payload is one serialized {@link StoreBatchProto} of {@code length} bytes (at least
 * one, at most {@link #MAX_RECORD_BYTES}) and the checksum is CRC32C over the payload. One record
 * holds exactly one batch, so a batch is atomic: a record is either whole and valid or it is not
 * applied. Each batch carries its format version ({@link StoreBatch#FORMAT_VERSION}); a record of a
 * newer one stops the store from opening, naming the file, the offset and the version, and nothing
 * is cut off or rewritten. Segment {@code n} is named {@code segment-<n, 20 digits>.log}; ids are
 * consecutive.
 */
final class SegmentFormat {
  /** Bytes of the record header: length and checksum. */
  static final int HEADER_BYTES = 2 * Integer.BYTES;

  /** The largest payload a record may declare; a larger length is corruption. */
  static final int MAX_RECORD_BYTES = 64 << 20;

  /** The id of the first segment of a new store. */
  static final long FIRST_SEGMENT_ID = 1;

  private static final String FILE_PREFIX = "segment-";
  private static final String FILE_SUFFIX = ".log";
  private static final int ID_DIGITS = 20;

  private SegmentFormat() {}

  static String fileName(long segmentId) {
    return FILE_PREFIX + String.format("%0" + ID_DIGITS + "d", segmentId) + FILE_SUFFIX;
  }

  static Path path(Path dir, long segmentId) {
    return dir.resolve(fileName(segmentId));
  }

  /** The segment id a file name stands for, or empty if the name is not a segment's. */
  static OptionalLong parseId(String fileName) {
    if (!fileName.startsWith(FILE_PREFIX)
        || !fileName.endsWith(FILE_SUFFIX)
        || fileName.length() != FILE_PREFIX.length() + ID_DIGITS + FILE_SUFFIX.length()) {
      return OptionalLong.empty();
    }
    String digits = fileName.substring(FILE_PREFIX.length(), FILE_PREFIX.length() + ID_DIGITS);
    for (int i = 0; i < digits.length(); i++) {
      if (!Character.isDigit(digits.charAt(i))) {
        return OptionalLong.empty();
      }
    }
    try {
      long id = Long.parseLong(digits);
      return id >= FIRST_SEGMENT_ID ? OptionalLong.of(id) : OptionalLong.empty();
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * Frames a batch as one record: header and payload in a single buffer, ready to append. The
   * record declares {@code max(batch.maxProcId(), maxProcId)} as the highest procId.
   *
   * @throws IOException if the payload would exceed {@link #MAX_RECORD_BYTES}
   */
  static ByteBuffer encode(StoreBatch batch, long maxProcId) throws IOException {
    StoreBatchProto message = withMaxProcId(batch, maxProcId);
    int length = message.getSerializedSize();
    if (length > MAX_RECORD_BYTES) {
      throw new IOException(
          "store batch "
              + batch
              + " encodes to "
              + length
              + " bytes; the file store's maximum record size is "
              + MAX_RECORD_BYTES
              + " bytes: split it into smaller batches");
    }
    byte[] frame = new byte[HEADER_BYTES + length];
    CodedOutputStream out = CodedOutputStream.newInstance(frame, HEADER_BYTES, length);
    message.writeTo(out);
    out.checkNoSpaceLeft();
    ByteBuffer buffer = ByteBuffer.wrap(frame);
    buffer.putInt(0, length);
    buffer.putInt(Integer.BYTES, crc(frame, HEADER_BYTES, length));
    return buffer;
  }

  private static StoreBatchProto withMaxProcId(StoreBatch batch, long maxProcId) {
    StoreBatchProto proto = batch.toProto();
    return proto.getMaxProcId() >= maxProcId
        ? proto
        : proto.toBuilder().setMaxProcId(maxProcId).build();
  }

  /** A record that only declares the highest procId (the first record of a rolled segment). */
  static ByteBuffer encodeMaxProcId(long maxProcId) throws IOException {
    return encode(StoreBatch.builder().maxProcId(maxProcId).build(), maxProcId);
  }

  /**
   * Parses a payload whose checksum matched.
   *
   * @throws InvalidProtocolBufferException if it is not a {@link StoreBatchProto}
   * @throws NewerStoreFormatException if a newer Baton wrote it (not a torn or corrupt record: the
   *     store must not cut it off)
   * @throws IllegalArgumentException if it holds an invalid record (procId not positive)
   */
  static StoreBatch decode(byte[] payload) throws IOException {
    StoreBatchProto proto = StoreBatchProto.parseFrom(payload);
    if (proto.getFormatVersion() > StoreBatch.FORMAT_VERSION) {
      throw new NewerStoreFormatException(proto.getFormatVersion());
    }
    return StoreBatch.fromProto(proto);
  }

  /** Whether a batch changes nothing and declares nothing: it needs no record. */
  static boolean isNoOp(StoreBatch batch) {
    return batch.upserts().isEmpty() && batch.deleteCount() == 0 && batch.maxProcId() <= 0;
  }

  static int crc(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }
}
