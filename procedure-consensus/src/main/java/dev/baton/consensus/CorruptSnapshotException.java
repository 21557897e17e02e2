package dev.baton.consensus;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A procedure snapshot file that cannot be loaded. Names the file, so an operator can move it
 * aside; a node whose latest snapshot is corrupt does not start rather than run on partial state
 * (wipe its storage directory and it catches up from the leader's snapshot).
 */
public class CorruptSnapshotException extends IOException {
  private final Path file;

  public CorruptSnapshotException(Path file, String what) {
    super("corrupt procedure snapshot " + file + ": " + what);
    this.file = file;
  }

  public Path file() {
    return file;
  }
}
