package dev.baton.procedure.store;

import java.io.IOException;

/**
 * A store record whose checksum matches but whose format version is newer than this build reads: a
 * newer Baton wrote it. Unlike a torn or corrupt record it is never cut off; the store refuses to
 * open instead, naming the version, and its files stay as they are.
 */
public final class NewerStoreFormatException extends IOException {
  private final int version;

  NewerStoreFormatException(int version) {
    super(
        "store format version "
            + version
            + ", newer than this build reads (up to "
            + StoreBatch.FORMAT_VERSION
            + "): a newer Baton wrote it; run that version (nothing was changed)");
    this.version = version;
  }

  NewerStoreFormatException(java.nio.file.Path file, long offset, NewerStoreFormatException cause) {
    super(file + " at offset " + offset + ": " + cause.getMessage(), cause);
    this.version = cause.version;
  }

  /** The version found. */
  public int version() {
    return version;
  }
}
