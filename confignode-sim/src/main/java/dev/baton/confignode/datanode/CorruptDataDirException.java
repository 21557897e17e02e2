package dev.baton.confignode.datanode;

import java.io.IOException;

/**
 * A DataNode's data directory cannot be read back: a damaged file, or one written by another
 * DataNode or format. The message names the file and, for the journal, the line.
 */
public final class CorruptDataDirException extends IOException {
  public CorruptDataDirException(String message, Throwable cause) {
    super(message, cause);
  }

  public CorruptDataDirException(String message) {
    super(message);
  }
}
