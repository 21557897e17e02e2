package dev.baton.consensus;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.protocol.RaftPeerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands leadership to another node when this leader cannot run an executor: asks Ratis to transfer
 * leadership to each other member in turn (Ratis refuses a member whose log is behind), and if none
 * takes it, to step down without a target so that the next election picks one.
 */
final class LeadershipYield {
  private static final Logger LOG = LoggerFactory.getLogger(LeadershipYield.class);

  private LeadershipYield() {}

  /**
   * Asks Ratis to move leadership away from {@code node}; completes with true once a transfer or a
   * step-down was accepted, false if every request failed (the node may still lead).
   */
  static CompletableFuture<Boolean> yieldLeadership(
      String nodeId, Set<String> members, RaftPeer peer, String why) {
    List<RaftPeerId> targets = new ArrayList<>();
    for (String id : members) {
      if (!id.equals(nodeId)) {
        targets.add(RaftPeerId.valueOf(id));
      }
    }
    targets.add(null); // a step-down: the next election picks the leader
    LOG.warn("Node {} hands leadership to another node: {}", nodeId, why);
    return tryEach(nodeId, peer, targets, 0);
  }

  private static CompletableFuture<Boolean> tryEach(
      String nodeId, RaftPeer peer, List<RaftPeerId> targets, int i) {
    if (i >= targets.size()) {
      LOG.error(
          "Node {} could not hand leadership to any node; it keeps trying to run an executor",
          nodeId);
      return CompletableFuture.completedFuture(false);
    }
    RaftPeerId target = targets.get(i);
    return peer.transferLeadership(target, ConsensusWaits.LEADERSHIP_TRANSFER_TIMEOUT)
        .handle(
            (reply, error) -> {
              if (error == null && reply.isSuccess()) {
                LOG.info(
                    "Node {} {}",
                    nodeId,
                    target == null ? "stepped down" : "transferred leadership to " + target);
                return true;
              }
              LOG.info(
                  "Node {}: leadership {} refused: {}",
                  nodeId,
                  target == null ? "step-down" : "transfer to " + target,
                  error != null ? error.toString() : reply.getException());
              return false;
            })
        .thenCompose(
            done ->
                done
                    ? CompletableFuture.completedFuture(true)
                    : tryEach(nodeId, peer, targets, i + 1));
  }
}
