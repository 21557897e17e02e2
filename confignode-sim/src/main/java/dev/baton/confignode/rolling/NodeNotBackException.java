package dev.baton.confignode.rolling;

import java.io.IOException;

/**
 * A rolling restart stopped at a node: its restart could not be asked for, or it did not come back
 * or catch up in time. The nodes after it were not restarted.
 */
public final class NodeNotBackException extends IOException {
  private final String nodeId;

  NodeNotBackException(String nodeId, String message, Throwable cause) {
    super(message, cause);
    this.nodeId = nodeId;
  }

  /** The node the restart stopped at. */
  public String nodeId() {
    return nodeId;
  }
}
