package dev.baton.consensus;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries Ratis' role callbacks (leader changed, leader ready, not leader, server shut down) to the
 * node on one thread of the node's own ({@code baton-<node>-role-events}), in the order Ratis made
 * them.
 *
 * <p>Ratis makes these callbacks while it holds its server's lock: the same lock that answers vote
 * requests and appends entries. A callback that waited there, even on a lock of the node held by a
 * thread stopping an executor, would keep this member from voting or following until it returned;
 * with one member down, the group could elect no leader meanwhile. The callback therefore only
 * queues the event here and returns. Leader ready goes the same way so that the node sees every
 * role event in Ratis' order (a "not leader" of an old term never overtakes the ready of a new
 * one).
 */
final class RoleEventRelay {
  private static final Logger LOG = LoggerFactory.getLogger(RoleEventRelay.class);

  private final String nodeId;
  private final ExecutorService thread;

  RoleEventRelay(String nodeId) {
    this.nodeId = nodeId;
    this.thread =
        Executors.newSingleThreadExecutor(
            LeadershipManager.daemon("baton-" + nodeId + "-role-events"));
  }

  /** Runs {@code event} after the events queued before it; never on the calling thread. */
  void relay(String what, Runnable event) {
    try {
      thread.execute(() -> deliver(what, event));
    } catch (RejectedExecutionException closed) {
      LOG.debug("Node {}: {} not delivered, the node is closed", nodeId, what);
    }
  }

  private void deliver(String what, Runnable event) {
    try {
      event.run();
    } catch (RuntimeException e) {
      LOG.error("Node {}: handling {} failed; later events are still delivered", nodeId, what, e);
    }
  }

  /** Takes no further events; those queued are still delivered. */
  void shutdown() {
    thread.shutdown();
  }
}
