package dev.baton.procedure.store;

import com.google.protobuf.UnsafeByteOperations;
import dev.baton.procedure.proto.RecordPartProto;
import dev.baton.procedure.proto.StoreBatchProto;
import dev.baton.procedure.proto.StoreRecordProto;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An atomic group of store changes: records to insert or replace, procIds to delete, and the
 * highest procId allocated so far (so ids are never reused after the records are gone). Its wire
 * form carries {@link #FORMAT_VERSION}.
 */
public final class StoreBatch {
  /**
   * The format of the batches this code writes, in {@code StoreBatchProto.format_version}: the file
   * store's records and the replicated log's batches. It reads this one and every older one (0,
   * absent, is format 1, written before the field existed). Format 2 adds records' parts ({@link
   * RecordParts}); only a batch that carries parts is written as format 2, so a reader of format 1
   * refuses it by its version instead of dropping the parts it does not know.
   */
  public static final int FORMAT_VERSION = 2;

  /** The format of a batch whose records carry no parts: what format 1 readers read. */
  public static final int FORMAT_VERSION_NO_PARTS = 1;

  private final List<StoreRecord> upserts;
  private final long[] deletes;
  private final long maxProcId;

  private StoreBatch(List<StoreRecord> upserts, long[] deletes, long maxProcId) {
    this.upserts = Collections.unmodifiableList(upserts);
    this.deletes = deletes;
    this.maxProcId = maxProcId;
  }

  public static Builder builder() {
    return new Builder();
  }

  public List<StoreRecord> upserts() {
    return upserts;
  }

  public long[] deletes() {
    return deletes.clone();
  }

  /** Number of deletes, without copying. */
  public int deleteCount() {
    return deletes.length;
  }

  /** The i-th deleted procId. */
  public long deleteAt(int i) {
    return deletes[i];
  }

  public long maxProcId() {
    return maxProcId;
  }

  /** Approximate encoded size in bytes, for batching bounds. */
  public int estimatedBytes() {
    int bytes = Long.BYTES * (deletes.length + 1);
    for (StoreRecord r : upserts) {
      bytes += (int) r.bytes() + Long.BYTES;
    }
    return bytes;
  }

  /** The wire form, shared by the file store's records and the replicated log's entries. */
  public StoreBatchProto toProto() {
    StoreBatchProto.Builder proto = StoreBatchProto.newBuilder().setMaxProcId(maxProcId);
    boolean parts = false;
    for (StoreRecord r : upserts) {
      // A record owns its bytes and they never change (StoreRecord's contract): no copy needed.
      StoreRecordProto.Builder record =
          StoreRecordProto.newBuilder()
              .setProcId(r.procId())
              .setData(UnsafeByteOperations.unsafeWrap(r.data()));
      if (!r.parts().isNone()) {
        parts = true;
        writeParts(r.parts(), record);
      }
      proto.addUpserts(record);
    }
    proto.setFormatVersion(parts ? FORMAT_VERSION : FORMAT_VERSION_NO_PARTS);
    for (long procId : deletes) {
      proto.addDeletes(procId);
    }
    return proto.build();
  }

  private static void writeParts(RecordParts parts, StoreRecordProto.Builder record) {
    record.setPartsDelta(!parts.isComplete());
    for (Map.Entry<Integer, byte[]> part : parts.parts().entrySet()) {
      record.addParts(
          RecordPartProto.newBuilder()
              .setIndex(part.getKey())
              .setData(UnsafeByteOperations.unsafeWrap(part.getValue())));
    }
    for (int index : parts.drops()) {
      record.addDroppedParts(index);
    }
  }

  /**
   * The parts a record's wire form carries (copied out of it).
   *
   * @throws IllegalArgumentException for a negative part index
   */
  public static RecordParts partsOf(StoreRecordProto record) {
    if (!record.getPartsDelta() && record.getPartsCount() == 0) {
      return RecordParts.NONE;
    }
    Map<Integer, byte[]> put = new TreeMap<>();
    for (RecordPartProto part : record.getPartsList()) {
      put.put(part.getIndex(), part.getData().toByteArray());
    }
    if (!record.getPartsDelta()) {
      return RecordParts.complete(put);
    }
    int[] drops = new int[record.getDroppedPartsCount()];
    for (int i = 0; i < drops.length; i++) {
      drops[i] = record.getDroppedParts(i);
    }
    return RecordParts.delta(put, drops);
  }

  /** The batch a {@link #toProto()} form stands for. */
  public static StoreBatch fromProto(StoreBatchProto proto) {
    Builder batch = builder().maxProcId(proto.getMaxProcId());
    for (StoreRecordProto r : proto.getUpsertsList()) {
      batch.upsert(new StoreRecord(r.getProcId(), r.getData().toByteArray(), partsOf(r)));
    }
    for (int i = 0; i < proto.getDeletesCount(); i++) {
      batch.delete(proto.getDeletes(i));
    }
    return batch.build();
  }

  @Override
  public String toString() {
    return "StoreBatch{upserts=" + upserts.size() + ", deletes=" + deletes.length + "}";
  }

  /** Builds a {@link StoreBatch}. */
  public static final class Builder {
    private final List<StoreRecord> upserts = new ArrayList<>();
    private long[] deletes = new long[0];
    private int deleteCount;
    private long maxProcId;

    private Builder() {}

    /** Writes {@code record}, replacing the stored one of its procId; raises the max procId. */
    public Builder upsert(StoreRecord record) {
      upserts.add(record);
      maxProcId = Math.max(maxProcId, record.procId());
      return this;
    }

    /** Deletes the record of {@code procId}. */
    public Builder delete(long procId) {
      if (deleteCount == deletes.length) {
        deletes = java.util.Arrays.copyOf(deletes, Math.max(4, deleteCount * 2));
      }
      deletes[deleteCount++] = procId;
      return this;
    }

    /**
     * Raises the highest procId the store remembers to at least {@code id} (never lowers it), so
     * ids are not reused after the records are deleted. Default: the highest upserted procId.
     */
    public Builder maxProcId(long id) {
      maxProcId = Math.max(maxProcId, id);
      return this;
    }

    /** Whether nothing is upserted or deleted yet. */
    public boolean isEmpty() {
      return upserts.isEmpty() && deleteCount == 0;
    }

    /** The batch, written by the store as one unit. */
    public StoreBatch build() {
      return new StoreBatch(
          new ArrayList<>(upserts), java.util.Arrays.copyOf(deletes, deleteCount), maxProcId);
    }
  }
}
