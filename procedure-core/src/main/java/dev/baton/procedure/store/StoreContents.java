package dev.baton.procedure.store;

import java.util.List;

/**
 * What a store holds: the latest version of every live record in ascending procId order, and the
 * highest procId ever allocated.
 */
public record StoreContents(List<StoreRecord> records, long maxProcId) {
  public StoreContents {
    records = List.copyOf(records);
  }
}
