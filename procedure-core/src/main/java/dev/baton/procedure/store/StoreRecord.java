package dev.baton.procedure.store;

import java.util.Objects;

/**
 * One serialized procedure as the store holds it. The bytes are owned by the record: callers must
 * not change the array after handing it over.
 */
public record StoreRecord(long procId, byte[] data) {
  public StoreRecord {
    if (procId <= 0) {
      throw new IllegalArgumentException("procId must be positive, got " + procId);
    }
    Objects.requireNonNull(data, "data");
  }
}
