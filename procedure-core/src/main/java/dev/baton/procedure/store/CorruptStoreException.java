package dev.baton.procedure.store;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Stored data that cannot be read back: names the file and the byte offset, so an operator can
 * inspect or move the file aside. Thrown instead of silently dropping records.
 */
public class CorruptStoreException extends IOException {
  private final Path file;
  private final long offset;

  public CorruptStoreException(Path file, long offset, String what) {
    super("corrupt procedure store file " + file + " at offset " + offset + ": " + what);
    this.file = file;
    this.offset = offset;
  }

  public Path file() {
    return file;
  }

  public long offset() {
    return offset;
  }
}
