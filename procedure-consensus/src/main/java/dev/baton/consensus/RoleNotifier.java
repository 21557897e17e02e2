package dev.baton.consensus;

import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the listeners of {@link ProcedureNode.Builder#onRoleChange} each change of their node's
 * {@link NodeRole}, in the order the changes took effect, on one thread of the node's own ({@code
 * baton-<node>-roles}): never on a Ratis thread nor on the thread that launches executors, so a
 * listener that blocks delays only the notifications after it. A role set again without a change is
 * not reported; the FOLLOWER a node starts in is not reported. A listener that throws is logged and
 * still hears later changes. Without listeners nothing is queued and no thread is started.
 */
final class RoleNotifier {
  private static final Logger LOG = LoggerFactory.getLogger(RoleNotifier.class);

  private final String nodeId;
  private final List<Consumer<NodeRole>> listeners;
  private final OrderedDelivery thread;
  private NodeRole last = NodeRole.FOLLOWER;

  RoleNotifier(String nodeId, List<Consumer<NodeRole>> listeners) {
    this.nodeId = nodeId;
    this.listeners = List.copyOf(listeners);
    this.thread = this.listeners.isEmpty() ? null : new OrderedDelivery(nodeId, "roles");
  }

  /** The node's role is now {@code role}; queues a notification if it changed. */
  synchronized void changed(NodeRole role) {
    if (thread == null || role == last) {
      return;
    }
    last = role;
    thread.deliver("role " + role, () -> deliver(role));
  }

  private void deliver(NodeRole role) {
    for (Consumer<NodeRole> listener : listeners) {
      try {
        listener.accept(role);
      } catch (RuntimeException e) {
        LOG.warn(
            "Node {}: a role listener failed on {}; fix the listener, later changes still reach it",
            nodeId,
            role,
            e);
      }
    }
  }

  /** Takes no further changes; those queued are still delivered. */
  void shutdown() {
    if (thread != null) {
      thread.shutdown();
    }
  }
}
