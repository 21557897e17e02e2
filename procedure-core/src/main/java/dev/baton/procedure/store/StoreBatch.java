package dev.baton.procedure.store;

import com.google.protobuf.UnsafeByteOperations;
import dev.baton.procedure.proto.StoreBatchProto;
import dev.baton.procedure.proto.StoreRecordProto;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An atomic group of store changes: records to insert or replace, procIds to delete, and the
 * highest procId allocated so far (so ids are never reused after the records are gone). Its wire
 * form carries {@link #FORMAT_VERSION}.
 */
public final class StoreBatch {
  /**
   * The format of the batches this code writes, in {@code StoreBatchProto.format_version}: the file
   * store's records and the replicated log's batches. It reads this one and every older one (0,
   * absent, is format 1, written before the field existed).
   */
  public static final int FORMAT_VERSION = 1;

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
      bytes += r.data().length + Long.BYTES;
    }
    return bytes;
  }

  /** The wire form, shared by the file store's records and the replicated log's entries. */
  public StoreBatchProto toProto() {
    StoreBatchProto.Builder proto =
        StoreBatchProto.newBuilder().setMaxProcId(maxProcId).setFormatVersion(FORMAT_VERSION);
    for (StoreRecord r : upserts) {
      // A record owns its bytes and they never change (StoreRecord's contract): no copy needed.
      proto.addUpserts(
          StoreRecordProto.newBuilder()
              .setProcId(r.procId())
              .setData(UnsafeByteOperations.unsafeWrap(r.data())));
    }
    for (long procId : deletes) {
      proto.addDeletes(procId);
    }
    return proto.build();
  }

  /** The batch a {@link #toProto()} form stands for. */
  public static StoreBatch fromProto(StoreBatchProto proto) {
    Builder batch = builder().maxProcId(proto.getMaxProcId());
    for (StoreRecordProto r : proto.getUpsertsList()) {
      batch.upsert(new StoreRecord(r.getProcId(), r.getData().toByteArray()));
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
