package dev.baton.procedure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class BoundedReadsTest {

  private static DataInputStream input(int count, int trailingBytes) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(count);
    out.write(new byte[trailingBytes]);
    return new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
  }

  @Test
  void aCountWhoseElementsFitIsReturned() throws IOException {
    assertEquals(3, BoundedReads.readCount(input(3, 12), Integer.BYTES, "ints"));
    assertEquals(0, BoundedReads.readCount(input(0, 0), Integer.BYTES, "ints"));
  }

  @Test
  void aCountLargerThanTheRemainingBytesIsRefusedNamingWhatAndTheCount() throws IOException {
    DataInputStream in = input(4, 12);
    IOException e =
        assertThrows(IOException.class, () -> BoundedReads.readCount(in, Integer.BYTES, "ints"));
    assertTrue(e.getMessage().contains("ints"), e.getMessage());
    assertTrue(e.getMessage().contains("4"), e.getMessage());
    assertTrue(e.getMessage().contains("12"), e.getMessage());
  }

  @Test
  void aNegativeOrHugeCountIsRefused() throws IOException {
    DataInputStream negative = input(-1, 8);
    assertThrows(IOException.class, () -> BoundedReads.readCount(negative, 1, "bytes"));
    DataInputStream huge = input(Integer.MAX_VALUE, 8);
    assertThrows(IOException.class, () -> BoundedReads.readBytes(huge, "bytes"));
    // count * size overflows an int: still refused
    DataInputStream overflow = input(Integer.MAX_VALUE / 2, 8);
    assertThrows(IOException.class, () -> BoundedReads.readCount(overflow, 8, "longs"));
  }

  @Test
  void lengthPrefixedBytesRoundTrip() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(3);
    out.write(new byte[] {7, 8, 9});
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
    assertArrayEquals(new byte[] {7, 8, 9}, BoundedReads.readBytes(in, "bytes"));
  }
}
