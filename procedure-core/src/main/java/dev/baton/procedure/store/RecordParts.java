package dev.baton.procedure.store;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The numbered parts of a {@link StoreRecord} beside its head, or a change to them. A <em>complete
 * </em> value is every part the record has ({@link #NONE}: none); a <em>delta</em> puts some parts
 * (replacing stored ones of the same index), drops others, and keeps the stored parts it names
 * neither way, so a writer persists only the parts that changed. Part indexes are not negative; the
 * bytes are owned by this value once handed over (callers must not change the arrays).
 */
public final class RecordParts {
  /** No parts at all: the parts of every record written without any. */
  public static final RecordParts NONE =
      new RecordParts(true, Collections.emptyNavigableMap(), new int[0]);

  private static final int[] NO_DROPS = new int[0];

  private final boolean complete;
  private final NavigableMap<Integer, byte[]> parts;
  private final int[] drops;

  private RecordParts(boolean complete, NavigableMap<Integer, byte[]> parts, int[] drops) {
    this.complete = complete;
    this.parts = parts;
    this.drops = drops;
  }

  /** Every part of a record: stored parts not in {@code parts} are dropped. */
  public static RecordParts complete(Map<Integer, byte[]> parts) {
    return parts.isEmpty() ? NONE : new RecordParts(true, checked(parts), NO_DROPS);
  }

  /**
   * A change to the stored parts: {@code put} replaces or adds parts, {@code drops} removes parts
   * (an index in both is put), the rest are kept.
   */
  public static RecordParts delta(Map<Integer, byte[]> put, int[] drops) {
    int[] dropped = drops.clone();
    for (int index : dropped) {
      checkIndex(index);
    }
    return new RecordParts(false, checked(put), dropped);
  }

  private static NavigableMap<Integer, byte[]> checked(Map<Integer, byte[]> parts) {
    TreeMap<Integer, byte[]> copy = new TreeMap<>();
    for (Map.Entry<Integer, byte[]> e : parts.entrySet()) {
      checkIndex(e.getKey());
      copy.put(e.getKey(), Objects.requireNonNull(e.getValue(), "part " + e.getKey()));
    }
    return Collections.unmodifiableNavigableMap(copy);
  }

  private static void checkIndex(int index) {
    if (index < 0) {
      throw new IllegalArgumentException("a part index is not negative, got " + index);
    }
  }

  /** Whether this is every part of the record rather than a change to the stored ones. */
  public boolean isComplete() {
    return complete;
  }

  /** Whether this is complete and holds no part: a record without parts. */
  public boolean isNone() {
    return complete && parts.isEmpty();
  }

  /** The parts held (complete) or put (delta), by ascending index; unmodifiable. */
  public NavigableMap<Integer, byte[]> parts() {
    return parts;
  }

  /** The indexes a delta drops (none for a complete value); a copy. */
  public int[] drops() {
    return drops.clone();
  }

  /** Bytes of the parts held or put, plus an int per index named. */
  public long bytes() {
    long bytes = (long) Integer.BYTES * drops.length;
    for (byte[] part : parts.values()) {
      bytes += part.length + Integer.BYTES;
    }
    return bytes;
  }

  /**
   * The complete parts after this applies to {@code stored} (complete): this itself if it is
   * complete, else the stored parts with this delta's puts and drops.
   */
  public RecordParts applyTo(RecordParts stored) {
    if (complete) {
      return this;
    }
    if (!stored.complete) {
      throw new IllegalArgumentException("a delta applies to complete parts only");
    }
    TreeMap<Integer, byte[]> merged = new TreeMap<>(stored.parts);
    for (int index : drops) {
      merged.remove(index);
    }
    merged.putAll(parts);
    return merged.isEmpty()
        ? NONE
        : new RecordParts(true, Collections.unmodifiableNavigableMap(merged), NO_DROPS);
  }

  @Override
  public String toString() {
    return (complete
            ? "RecordParts{complete, "
            : "RecordParts{delta, drops=" + Arrays.toString(drops) + ", ")
        + "parts="
        + parts.keySet()
        + "}";
  }
}
