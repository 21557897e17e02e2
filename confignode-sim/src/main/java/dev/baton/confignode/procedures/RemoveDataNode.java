package dev.baton.confignode.procedures;

import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.meta.ClusterMetadata.DataNode;
import dev.baton.confignode.meta.ClusterMetadata.Region;
import dev.baton.procedure.scheduler.LockRequest;
import dev.baton.procedure.scheduler.ResourceKey;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Removes a DataNode: mark it REMOVING (no new regions go there), migrate every region replica it
 * holds to another active DataNode as child {@link MigrateRegion} procedures, then remove it from
 * the metadata. Children that succeeded are not undone by a rollback; the node is marked ACTIVE
 * again.
 */
public final class RemoveDataNode extends ConfigNodeProcedure<RemoveDataNode.S> {
  enum S {
    VALIDATE,
    MARK_REMOVING,
    MIGRATE,
    REMOVE
  }

  int dataNodeId;

  public RemoveDataNode() {
    super(S.class);
  }

  public RemoveDataNode(int dataNodeId) {
    this();
    this.dataNodeId = dataNodeId;
  }

  @Override
  protected LockRequest lockRequest(ConfigNodeEnv env) {
    return LockRequest.exclusive(ResourceKey.node(Integer.toString(dataNodeId)));
  }

  @Override
  protected Flow executeFromState(ConfigNodeEnv env, S state) throws InterruptedException {
    try {
      ClusterMetadata.View view = env.metadata().local();
      switch (state) {
        case VALIDATE -> {
          if (view.dataNode(dataNodeId).isEmpty()) {
            setFailure("RemoveDataNode", new IllegalStateException("no DataNode " + dataNodeId));
            return Flow.NO_MORE_STATE;
          }
          return next(state);
        }
        case MARK_REMOVING -> {
          DataNode dn = view.dataNode(dataNodeId).orElseThrow();
          DataNode marked = dn.withStatus(DataNode.Status.REMOVING);
          env.writeMetadata(Map.of(ClusterMetadata.key(marked), marked), List.of());
          return next(state);
        }
        case MIGRATE -> {
          Map<Integer, Integer> load = new HashMap<>();
          for (DataNode d : view.dataNodes()) {
            if (d.status() == DataNode.Status.ACTIVE) {
              load.put(d.id(), 0);
            }
          }
          for (Region r : view.regions()) {
            for (int dn : r.replicas()) {
              load.computeIfPresent(dn, (k, v) -> v + 1);
            }
          }
          for (Region r : view.regions()) {
            if (!r.replicas().contains(dataNodeId)) {
              continue;
            }
            Integer target =
                load.keySet().stream()
                    .filter(dn -> !r.replicas().contains(dn))
                    .min(
                        Comparator.comparingInt((Integer dn) -> load.get(dn))
                            .thenComparing(dn -> dn))
                    .orElse(null);
            if (target == null) {
              setFailure(
                  "RemoveDataNode",
                  new IllegalStateException(
                      "no active DataNode can take a replica of region " + r.id()));
              return Flow.NO_MORE_STATE;
            }
            load.merge(target, 1, Integer::sum);
            addChildProcedure(new MigrateRegion(r.id(), dataNodeId, target));
          }
          return next(state);
        }
        case REMOVE -> {
          env.writeMetadata(Map.of(), List.of(ClusterMetadata.DATANODES + dataNodeId));
          return Flow.NO_MORE_STATE;
        }
      }
    } catch (IOException e) {
      return failed("RemoveDataNode " + dataNodeId + " " + state, e);
    }
    return Flow.NO_MORE_STATE;
  }

  @Override
  protected void rollbackState(ConfigNodeEnv env, S state) throws IOException {
    if (state == S.MARK_REMOVING) {
      var dn = env.metadata().local().dataNode(dataNodeId);
      if (dn.isPresent()) {
        DataNode active = dn.get().withStatus(DataNode.Status.ACTIVE);
        env.writeMetadata(Map.of(ClusterMetadata.key(active), active), List.of());
      }
    }
  }

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeInt(dataNodeId);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    dataNodeId = in.readInt();
  }
}
