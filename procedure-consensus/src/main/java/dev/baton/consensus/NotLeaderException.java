package dev.baton.consensus;

import java.io.IOException;

/**
 * This node is not (or no longer) the leader of the procedure group, so it cannot write. A store
 * write fails with it at once after leadership moved; a client should retry on the leader.
 */
public class NotLeaderException extends IOException {
  public NotLeaderException(String message) {
    super(message);
  }
}
