package dev.baton.confignode.procedures;

import dev.baton.confignode.meta.ClusterMetadata.ConfigNode;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.procedure.scheduler.LockRequest;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Optional;

/**
 * Removes a ConfigNode from the Raft group: refused if the members left would have no live
 * majority; when the leader itself is removed it hands leadership to another member first (the step
 * then runs again on the new leader, where there is nothing to do); then the group moves to the
 * configuration without it, and the removal is recorded in the metadata (the id is never used
 * again). The removed node finds out by itself and stops.
 */
public final class RemoveConfigNode extends ConfigNodeProcedure<RemoveConfigNode.S> {
  enum S {
    VALIDATE,
    TRANSFER_LEADERSHIP,
    REMOVE_FROM_GROUP,
    RECORD
  }

  String nodeId;
  String address = "";

  public RemoveConfigNode() {
    super(S.class);
  }

  public RemoveConfigNode(String nodeId) {
    this();
    this.nodeId = MembershipSteps.checkId(nodeId);
  }

  @Override
  protected LockRequest lockRequest(ConfigNodeEnv env) {
    return MembershipSteps.lock();
  }

  /** The group cannot take back a member it removed: that step is retried until it is done. */
  @Override
  protected boolean isRollbackSupported(S state) {
    return state != S.REMOVE_FROM_GROUP && state != S.RECORD;
  }

  @Override
  protected Flow executeFromState(ConfigNodeEnv env, S state) throws InterruptedException {
    try {
      switch (state) {
        case VALIDATE -> {
          Optional<String> refused = MembershipSteps.refuseRemoval(env, nodeId);
          if (refused.isPresent()) {
            setFailure("RemoveConfigNode", new IllegalStateException(refused.get()));
            return Flow.NO_MORE_STATE;
          }
          address = MembershipSteps.addressOf(env, nodeId).orElse("");
          return next(state);
        }
        case TRANSFER_LEADERSHIP -> {
          MembershipSteps.leaveLeadership(env, nodeId);
          return next(state);
        }
        case REMOVE_FROM_GROUP -> {
          if (env.membership().self().equals(nodeId)) {
            // leadership came back to the node being removed: hand it away again
            setNextState(S.TRANSFER_LEADERSHIP);
            return Flow.HAS_MORE_STATE;
          }
          env.membership().remove(nodeId, ConfigNodeWaits.MEMBERSHIP_CHANGE_WAIT);
          return next(state);
        }
        case RECORD -> {
          MembershipSteps.record(env, nodeId, address, ConfigNode.Status.REMOVED);
          return Flow.NO_MORE_STATE;
        }
      }
    } catch (IOException | IllegalStateException e) {
      return failed("RemoveConfigNode " + nodeId + " " + state, e);
    }
    return Flow.NO_MORE_STATE;
  }

  @Override
  protected void rollbackState(ConfigNodeEnv env, S state) {}

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeUTF(nodeId);
    out.writeUTF(address);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    nodeId = in.readUTF();
    address = in.readUTF();
  }
}
