package dev.baton.confignode.procedures;

import dev.baton.confignode.meta.ClusterMetadata.ConfigNode;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.procedure.scheduler.LockRequest;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Adds a ConfigNode to the Raft group: the node must already run, started empty as a joining member
 * ({@code node --join}); the leader stages it until it has caught up (the log, or a snapshot of
 * every live procedure), then the group moves to the configuration with it; the addition is
 * recorded in the metadata. A failure of the change (the node never answered or made no progress)
 * fails the procedure and takes the node out of the group again if it got in.
 */
public final class AddConfigNode extends ConfigNodeProcedure<AddConfigNode.S> {
  enum S {
    VALIDATE,
    ADD_TO_GROUP,
    RECORD
  }

  String nodeId;
  String address;

  public AddConfigNode() {
    super(S.class);
  }

  /**
   * @param nodeId the new member's id (never one removed before)
   * @param address its Raft address, HOST:PORT
   */
  public AddConfigNode(String nodeId, String address) {
    this();
    this.nodeId = MembershipSteps.checkId(nodeId);
    this.address = MembershipSteps.checkAddress(address);
  }

  @Override
  protected LockRequest lockRequest(ConfigNodeEnv env) {
    return MembershipSteps.lock();
  }

  @Override
  protected Flow executeFromState(ConfigNodeEnv env, S state) throws InterruptedException {
    try {
      switch (state) {
        case VALIDATE -> {
          Optional<String> refused = MembershipSteps.refuseAddition(env, nodeId, address);
          if (refused.isPresent()) {
            setFailure("AddConfigNode", new IllegalStateException(refused.get()));
            return Flow.NO_MORE_STATE;
          }
          return next(state);
        }
        case ADD_TO_GROUP -> {
          env.membership()
              .add(
                  nodeId,
                  MembershipSteps.socketAddress(address),
                  ConfigNodeWaits.MEMBERSHIP_CHANGE_WAIT);
          return next(state);
        }
        case RECORD -> {
          MembershipSteps.record(env, nodeId, address, ConfigNode.Status.ACTIVE);
          setResult(nodeId.getBytes(StandardCharsets.UTF_8));
          return Flow.NO_MORE_STATE;
        }
      }
    } catch (IOException | IllegalStateException e) {
      return failed("AddConfigNode " + nodeId + " " + state, e);
    }
    return Flow.NO_MORE_STATE;
  }

  /** A failed addition takes the node out of the group again, if it got in. */
  @Override
  protected void rollbackState(ConfigNodeEnv env, S state)
      throws IOException, InterruptedException {
    if (state == S.ADD_TO_GROUP && !env.membership().self().equals(nodeId)) {
      env.membership().remove(nodeId, ConfigNodeWaits.MEMBERSHIP_CHANGE_WAIT);
    }
  }

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
