package dev.baton.confignode.procedures;

import dev.baton.confignode.datanode.DataNodeReply;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.meta.ClusterMetadata.DataNode;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/** Registers a DataNode: ask it for its id (a fenced ping), then record it as ACTIVE. */
public final class AddDataNode extends ConfigNodeProcedure<AddDataNode.S> {
  enum S {
    PING,
    REGISTER
  }

  String address;
  int dataNodeId = -1;

  public AddDataNode() {
    super(S.class);
  }

  public AddDataNode(String address) {
    this();
    this.address = DataNodeAddress.check(address);
  }

  @Override
  protected Flow executeFromState(ConfigNodeEnv env, S state) throws InterruptedException {
    try {
      if (state == S.PING) {
        DataNodeReply reply = env.dataNode(address).ping(env.command(this, "PING"));
        dataNodeId = reply.dataNodeId();
        return next(state);
      }
      var existing = env.metadata().local().dataNode(dataNodeId);
      if (existing.isPresent() && !existing.get().address().equals(address)) {
        setFailure(
            "AddDataNode",
            new IllegalStateException(
                "DataNode " + dataNodeId + " is registered at " + existing.get().address()));
        return Flow.NO_MORE_STATE;
      }
      DataNode dn = new DataNode(dataNodeId, address, DataNode.Status.ACTIVE);
      env.writeMetadata(Map.of(ClusterMetadata.key(dn), dn), List.of());
      setResult(Integer.toString(dataNodeId).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (IOException e) {
      return failed("AddDataNode " + address + " " + state, e);
    }
    return Flow.NO_MORE_STATE;
  }

  @Override
  protected void rollbackState(ConfigNodeEnv env, S state) {}

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeUTF(address);
    out.writeInt(dataNodeId);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    address = in.readUTF();
    dataNodeId = in.readInt();
  }
}
