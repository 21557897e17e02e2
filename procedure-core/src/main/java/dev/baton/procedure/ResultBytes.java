package dev.baton.procedure;

import dev.baton.procedure.store.RecordParts;

/**
 * A procedure's result as a {@link ProcedureInfo} holds it: bytes, or the result in a record's head
 * and the record's parts, which make the result when put one after the other in index order. The
 * parts are joined on the first read and kept, so a snapshot costs nothing until someone reads it.
 * The arrays are never changed (a record owns its bytes), so they are shared, not copied.
 */
final class ResultBytes {
  static final ResultBytes NONE = new ResultBytes(null, RecordParts.NONE);

  private final byte[] head;
  private final RecordParts parts;
  private volatile byte[] joined;

  private ResultBytes(byte[] head, RecordParts parts) {
    this.head = head;
    this.parts = parts;
  }

  /** A copy of {@code result} (null: no result). */
  static ResultBytes copyOf(byte[] result) {
    return result == null ? NONE : new ResultBytes(result.clone(), RecordParts.NONE);
  }

  /**
   * The result {@code head} (null: none) followed by {@code parts} (complete), neither copied nor
   * changed later.
   */
  static ResultBytes of(byte[] head, RecordParts parts) {
    return head == null && parts.isNone() ? NONE : new ResultBytes(head, parts);
  }

  /** The result bytes (not a copy: callers must not change them), or null. */
  byte[] bytes() {
    if (parts.isNone()) {
      return head;
    }
    byte[] j = joined;
    if (j == null) {
      j = join(head, parts);
      joined = j;
    }
    return j;
  }

  /** {@code head} (null: empty) followed by the parts of {@code parts} in index order. */
  static byte[] join(byte[] head, RecordParts parts) {
    int size = head == null ? 0 : head.length;
    for (byte[] part : parts.parts().values()) {
      size += part.length;
    }
    byte[] out = new byte[size];
    int at = 0;
    if (head != null) {
      System.arraycopy(head, 0, out, 0, head.length);
      at = head.length;
    }
    for (byte[] part : parts.parts().values()) {
      System.arraycopy(part, 0, out, at, part.length);
      at += part.length;
    }
    return out;
  }

  @Override
  public String toString() {
    if (head == null && parts.isNone()) {
      return "null";
    }
    return parts.isNone()
        ? "byte[" + head.length + "]"
        : "head of "
            + (head == null ? 0 : head.length)
            + " bytes and "
            + parts.parts().size()
            + " parts";
  }
}
