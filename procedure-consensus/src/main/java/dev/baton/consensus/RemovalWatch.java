package dev.baton.consensus;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a node that it is no longer a member, once: when a configuration it applies no longer names
 * it (the {@link MembershipView} decides), or when Ratis shuts its server down by itself, which it
 * does when an election finds the node outside the group or a member answers its vote request that
 * it was removed. (A removed follower usually learns it the second way: the leader stops sending it
 * entries before the configuration without it.) The listeners run on a thread of their own, never
 * on Ratis' threads, since they close the node.
 */
final class RemovalWatch implements ProcedureStateMachine.MembershipListener {
  private static final Logger LOG = LoggerFactory.getLogger(RemovalWatch.class);

  private final String nodeId;
  private final MembershipView view;
  private final List<Consumer<String>> listeners;
  private final AtomicBoolean fired = new AtomicBoolean();
  private volatile boolean closing;

  RemovalWatch(String nodeId, MembershipView view, List<Consumer<String>> listeners) {
    this.nodeId = nodeId;
    this.view = view;
    this.listeners = List.copyOf(listeners);
  }

  /** The node is closing: a shutdown of its server from now on is its own. */
  void closing() {
    closing = true;
  }

  @Override
  public void configurationApplied(long index, RaftConfigurationProto conf) {
    if (view.applied(index, conf)) {
      fire(
          "the group's configuration at log index "
              + index
              + " no longer names node "
              + nodeId
              + ": it was removed from the cluster");
    }
  }

  @Override
  public void shutDownByRaft() {
    if (closing) {
      return;
    }
    fire(
        "Raft shut down node "
            + nodeId
            + "'s server: the group's configuration does not include it ("
            + (view.wasMember()
                ? "it was removed from the cluster"
                : "it was removed from the cluster, or it was joining and lost the leader before"
                    + " the group took it in: start it again with its data and add it again")
            + ")");
  }

  private void fire(String reason) {
    if (!fired.compareAndSet(false, true)) {
      return;
    }
    LOG.warn("Node {} is no longer a member: {}", nodeId, reason);
    Thread t =
        new Thread(
            () -> {
              for (Consumer<String> l : listeners) {
                try {
                  l.accept(reason);
                } catch (RuntimeException e) {
                  LOG.error("Node {}: a removal listener failed", nodeId, e);
                }
              }
            },
            "baton-removed-" + nodeId);
    t.setDaemon(true);
    t.start();
  }
}
