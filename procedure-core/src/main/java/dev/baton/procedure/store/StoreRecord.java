package dev.baton.procedure.store;

import java.util.Objects;

/**
 * One serialized procedure as the store holds it: its head bytes and its numbered {@link
 * RecordParts}. A record written without parts has none (any it had are dropped); one written with
 * a parts delta keeps the stored parts the delta does not name. The bytes are owned by the record:
 * callers must not change the arrays after handing them over.
 */
public record StoreRecord(long procId, byte[] data, RecordParts parts) {
  public StoreRecord {
    if (procId <= 0) {
      throw new IllegalArgumentException("procId must be positive, got " + procId);
    }
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(parts, "parts");
  }

  /** A record without parts. */
  public StoreRecord(long procId, byte[] data) {
    this(procId, data, RecordParts.NONE);
  }

  /** Whether this record changes the stored parts rather than giving all of them. */
  public boolean isDelta() {
    return !parts.isComplete();
  }

  /** Bytes of the head and the parts held or put. */
  public long bytes() {
    return data.length + parts.bytes();
  }

  /**
   * The complete record this write leaves when {@code stored} (complete, or null if the store holds
   * none) was there before.
   *
   * @throws IllegalStateException if this is a delta and the store holds no record of its procId:
   *     the parts it keeps are nowhere
   */
  public StoreRecord appliedTo(StoreRecord stored) {
    if (!isDelta()) {
      return this;
    }
    if (stored == null) {
      throw new IllegalStateException(
          "a parts delta for procedure "
              + procId
              + ", of which the store holds no record: the parts it keeps are missing");
    }
    return new StoreRecord(procId, data, parts.applyTo(stored.parts()));
  }
}
