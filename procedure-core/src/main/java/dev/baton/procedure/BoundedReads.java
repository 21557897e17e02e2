package dev.baton.procedure;

import java.io.DataInputStream;
import java.io.IOException;

/**
 * Reads of length prefixes that cannot allocate more than the input holds. A stored record may be
 * corrupt or forged; a count read from it and used to size an array or a list must first be checked
 * against the bytes that remain, or one record can exhaust the heap of every new leader that
 * decodes it. These checks rely on {@link DataInputStream#available()} being the exact number of
 * bytes left, which holds for the stream {@link Procedure#deserializeStateData} receives (it reads
 * a byte array that holds the procedure's state) and for any stream over a byte array.
 */
public final class BoundedReads {
  private BoundedReads() {}

  /**
   * Reads a count of elements that each take at least {@code minBytesEach} bytes of the input.
   *
   * @throws IOException if the count is negative or its elements cannot fit in what remains
   */
  public static int readCount(DataInputStream in, int minBytesEach, String what)
      throws IOException {
    if (minBytesEach < 1) {
      throw new IllegalArgumentException("minBytesEach must be at least 1: " + minBytesEach);
    }
    int count = in.readInt();
    int remaining = in.available();
    if (count < 0 || (long) count * minBytesEach > remaining) {
      throw new IOException(
          what
              + ": stored count "
              + count
              + " cannot fit the "
              + remaining
              + " bytes that remain (at least "
              + minBytesEach
              + " bytes each)");
    }
    return count;
  }

  /**
   * Reads a length-prefixed byte array (an {@code int} length, then the bytes).
   *
   * @throws IOException if the length is negative or longer than what remains
   */
  public static byte[] readBytes(DataInputStream in, String what) throws IOException {
    byte[] bytes = new byte[readCount(in, 1, what)];
    in.readFully(bytes);
    return bytes;
  }
}
