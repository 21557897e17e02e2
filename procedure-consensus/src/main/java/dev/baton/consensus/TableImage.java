package dev.baton.consensus;

import dev.baton.consensus.proto.AuditRecord;
import dev.baton.procedure.store.RecordParts;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;
import org.apache.ratis.server.protocol.TermIndex;

/**
 * A frozen image of the {@link ProcedureTable} after a whole number of applied entries: references
 * to its immutable record and metadata values in key order, its counters, and the log position it
 * includes. Taking one copies references only, so it is cheap enough for the apply thread; writing
 * it (the expensive part) can then run on another thread while the table moves on.
 */
final class TableImage {
  private static final int IO_BUFFER_BYTES = 1 << 16;

  private final TermIndex at;
  private final long maxProcId;
  private final long fenceTerm;
  private final long fenceEpoch;
  private final Records records;
  private final String[] metadataKeys;
  private final byte[][] metadataValues;
  private final List<AuditRecord> audit;

  TableImage(
      TermIndex at,
      long maxProcId,
      long fenceTerm,
      long fenceEpoch,
      Records records,
      String[] metadataKeys,
      byte[][] metadataValues,
      List<AuditRecord> audit) {
    this.at = at;
    this.maxProcId = maxProcId;
    this.fenceTerm = fenceTerm;
    this.fenceEpoch = fenceEpoch;
    this.records = records;
    this.metadataKeys = metadataKeys;
    this.metadataValues = metadataValues;
    this.audit = audit;
  }

  /** The last log entry this image includes (null when frozen outside the state machine). */
  TermIndex at() {
    return at;
  }

  int recordCount() {
    return records.ids().length;
  }

  /**
   * The records in key order: ids, heads, and the complete parts of each ({@code parts} null when
   * no record has any).
   */
  record Records(long[] ids, byte[][] data, RecordParts[] parts) {}

  /**
   * Writes the image in the snapshot format {@link ProcedureTable#loadSnapshot} reads: magic,
   * version, max id, fence term and epoch, record count, then each record as id, length, bytes (and
   * from {@link ProcedureTable#SNAPSHOT_VERSION}, written only when a record has parts, its part
   * count, then each part's index, length, bytes); then the metadata; then the audit trail (count,
   * then each record's length and bytes); last a CRC32C of everything before it.
   */
  void writeTo(OutputStream target) throws IOException {
    CheckedOutputStream checked = new CheckedOutputStream(target, new CRC32C());
    DataOutputStream out = new DataOutputStream(new BufferedOutputStream(checked, IO_BUFFER_BYTES));
    out.writeInt(ProcedureTable.SNAPSHOT_MAGIC);
    RecordParts[] parts = records.parts();
    out.writeInt(
        parts == null ? ProcedureTable.SNAPSHOT_VERSION_NO_PARTS : ProcedureTable.SNAPSHOT_VERSION);
    out.writeLong(maxProcId);
    out.writeLong(fenceTerm);
    out.writeLong(fenceEpoch);
    long[] ids = records.ids();
    byte[][] data = records.data();
    out.writeInt(ids.length);
    for (int i = 0; i < ids.length; i++) {
      out.writeLong(ids[i]);
      out.writeInt(data[i].length);
      out.write(data[i]);
      if (parts != null) {
        writeParts(parts[i], out);
      }
    }
    out.writeInt(metadataKeys.length);
    for (int i = 0; i < metadataKeys.length; i++) {
      out.writeUTF(metadataKeys[i]);
      out.writeInt(metadataValues[i].length);
      out.write(metadataValues[i]);
    }
    out.writeInt(audit.size());
    for (AuditRecord r : audit) {
      byte[] bytes = r.toByteArray();
      out.writeInt(bytes.length);
      out.write(bytes);
    }
    out.flush();
    long crc = checked.getChecksum().getValue();
    out.writeLong(crc);
    out.flush();
  }

  private static void writeParts(RecordParts parts, DataOutputStream out) throws IOException {
    out.writeInt(parts.parts().size());
    for (Map.Entry<Integer, byte[]> part : parts.parts().entrySet()) {
      out.writeInt(part.getKey());
      out.writeInt(part.getValue().length);
      out.write(part.getValue());
    }
  }
}
