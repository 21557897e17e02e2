package dev.baton.confignode.procedures;

import dev.baton.procedure.scheduler.LockRequest;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Optional;

/**
 * Replaces a ConfigNode (typically one whose disk died) by a new one under a new id: first removes
 * the old member ({@link RemoveConfigNode}, a child), then adds the new one ({@link AddConfigNode},
 * a child), both under this procedure's membership lock. The old id is removed before the new one
 * votes and is never used again, so no id ever votes twice. Both are checked before anything
 * changes; a child that succeeded is not undone when a later one fails.
 */
public final class ReplaceConfigNode extends ConfigNodeProcedure<ReplaceConfigNode.S> {
  enum S {
    VALIDATE,
    REMOVE_OLD,
    ADD_NEW
  }

  String oldId;
  String newId;
  String address;

  public ReplaceConfigNode() {
    super(S.class);
  }

  /**
   * @param oldId the member to remove
   * @param newId the new member's id (never one used before)
   * @param address the new member's Raft address, HOST:PORT
   */
  public ReplaceConfigNode(String oldId, String newId, String address) {
    this();
    this.oldId = MembershipSteps.checkId(oldId);
    this.newId = MembershipSteps.checkId(newId);
    this.address = MembershipSteps.checkAddress(address);
    if (oldId.equals(newId)) {
      throw new IllegalArgumentException(
          "a replacement takes a new id, not the old one (" + oldId + "): an id never votes twice");
    }
  }

  @Override
  protected LockRequest lockRequest(ConfigNodeEnv env) {
    return MembershipSteps.lock();
  }

  @Override
  protected Flow executeFromState(ConfigNodeEnv env, S state) {
    switch (state) {
      case VALIDATE -> {
        Optional<String> refused =
            MembershipSteps.refuseAddition(env, newId, address)
                .or(() -> MembershipSteps.refuseRemoval(env, oldId))
                .or(
                    () ->
                        env.membership().isMember(newId)
                            ? Optional.of("ConfigNode " + newId + " is a member already")
                            : Optional.empty());
        if (refused.isPresent()) {
          setFailure("ReplaceConfigNode", new IllegalStateException(refused.get()));
          return Flow.NO_MORE_STATE;
        }
        return next(state);
      }
      case REMOVE_OLD -> {
        addChildProcedure(new RemoveConfigNode(oldId));
        return next(state);
      }
      case ADD_NEW -> {
        addChildProcedure(new AddConfigNode(newId, address));
        return Flow.NO_MORE_STATE;
      }
    }
    return Flow.NO_MORE_STATE;
  }

  @Override
  protected void rollbackState(ConfigNodeEnv env, S state) {}

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeUTF(oldId);
    out.writeUTF(newId);
    out.writeUTF(address);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    oldId = in.readUTF();
    newId = in.readUTF();
    address = in.readUTF();
  }
}
