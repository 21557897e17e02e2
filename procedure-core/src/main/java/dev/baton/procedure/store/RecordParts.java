package dev.baton.procedure.store;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
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
 *
 * <p>Applying a delta ({@link #applyTo}) costs what the delta holds, not what the record holds: the
 * complete value it makes keeps the earlier complete map and the deltas applied since, and puts
 * them together when its parts are read, or once the deltas hold as many entries as the map (so a
 * record of n parts changed a part per step costs O(1) per step, amortized).
 */
public final class RecordParts {
  /** No parts at all: the parts of every record written without any. */
  public static final RecordParts NONE =
      new RecordParts(true, Collections.emptyNavigableMap(), new int[0], null, 0, 0);

  /** Deltas applied lazily before they are put together, at least (see {@link #applyTo}). */
  static final int MIN_LAZY_ENTRIES = 16;

  private static final int[] NO_DROPS = new int[0];

  /** Deltas applied on top of a complete map, newest first. */
  private record Chain(RecordParts delta, Chain older) {}

  private final boolean complete;

  /** A delta's puts; a complete value's map before {@link #chain} applies. */
  private final NavigableMap<Integer, byte[]> parts;

  private final int[] drops;
  private final Chain chain;
  private final int chainEntries;

  /** See {@link #bytes}: fixed when the value is made. */
  private final long bytes;

  private volatile NavigableMap<Integer, byte[]> joined;

  private RecordParts(
      boolean complete,
      NavigableMap<Integer, byte[]> parts,
      int[] drops,
      Chain chain,
      int chainEntries,
      long bytes) {
    this.complete = complete;
    this.parts = parts;
    this.drops = drops;
    this.chain = chain;
    this.chainEntries = chainEntries;
    this.bytes = bytes;
  }

  /** Every part of a record: stored parts not in {@code parts} are dropped. */
  public static RecordParts complete(Map<Integer, byte[]> parts) {
    return parts.isEmpty() ? NONE : exact(checked(parts));
  }

  private static RecordParts exact(NavigableMap<Integer, byte[]> map) {
    return new RecordParts(true, map, NO_DROPS, null, 0, bytesOf(map, 0));
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
    NavigableMap<Integer, byte[]> puts = checked(put);
    return new RecordParts(false, puts, dropped, null, 0, bytesOf(puts, dropped.length));
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

  private static long bytesOf(Map<Integer, byte[]> parts, int drops) {
    long bytes = (long) Integer.BYTES * drops;
    for (byte[] part : parts.values()) {
      bytes += part.length + Integer.BYTES;
    }
    return bytes;
  }

  /** Whether this is every part of the record rather than a change to the stored ones. */
  public boolean isComplete() {
    return complete;
  }

  /**
   * Whether this is complete and known to hold no part without reading them: a record without
   * parts. (A complete value whose deltas dropped every part may answer false.)
   */
  public boolean isNone() {
    return complete && chain == null && parts.isEmpty();
  }

  /** The parts held (complete) or put (delta), by ascending index; unmodifiable. */
  public NavigableMap<Integer, byte[]> parts() {
    if (chain == null) {
      return parts;
    }
    NavigableMap<Integer, byte[]> j = joined;
    if (j == null) {
      j = join();
      joined = j;
    }
    return j;
  }

  private NavigableMap<Integer, byte[]> join() {
    Deque<RecordParts> oldestFirst = new ArrayDeque<>();
    for (Chain c = chain; c != null; c = c.older()) {
      oldestFirst.push(c.delta());
    }
    TreeMap<Integer, byte[]> map = new TreeMap<>(parts);
    for (RecordParts delta : oldestFirst) {
      delta.putInto(map);
    }
    return Collections.unmodifiableNavigableMap(map);
  }

  private void putInto(TreeMap<Integer, byte[]> map) {
    for (int index : drops) {
      map.remove(index);
    }
    map.putAll(parts);
  }

  /** The indexes a delta drops (none for a complete value); a copy. */
  public int[] drops() {
    return drops.clone();
  }

  /**
   * Bytes of the parts held or put, plus an int per index named. For a complete value made by
   * {@link #applyTo} before its parts are put together, an upper bound (the stored bytes plus the
   * delta's); it never changes once the value is made.
   */
  public long bytes() {
    return bytes;
  }

  /**
   * The complete parts after this applies to {@code stored} (complete): this itself if it is
   * complete, else the stored parts with this delta's puts and drops (put together later, see the
   * class comment).
   */
  public RecordParts applyTo(RecordParts stored) {
    if (complete) {
      return this;
    }
    if (!stored.complete) {
      throw new IllegalArgumentException("a delta applies to complete parts only");
    }
    NavigableMap<Integer, byte[]> storedJoined =
        stored.chain == null ? stored.parts : stored.joined;
    NavigableMap<Integer, byte[]> base = storedJoined != null ? storedJoined : stored.parts;
    Chain older = storedJoined != null ? null : stored.chain;
    int entries = (older == null ? 0 : stored.chainEntries) + parts.size() + drops.length;
    if (entries > Math.max(MIN_LAZY_ENTRIES, base.size())) {
      TreeMap<Integer, byte[]> map = new TreeMap<>(stored.parts());
      putInto(map);
      return map.isEmpty() ? NONE : exact(Collections.unmodifiableNavigableMap(map));
    }
    return new RecordParts(
        true, base, NO_DROPS, new Chain(this, older), entries, stored.bytes + bytes);
  }

  @Override
  public String toString() {
    return (complete
            ? "RecordParts{complete, "
            : "RecordParts{delta, drops=" + Arrays.toString(drops) + ", ")
        + "parts="
        + parts().keySet()
        + "}";
  }
}
