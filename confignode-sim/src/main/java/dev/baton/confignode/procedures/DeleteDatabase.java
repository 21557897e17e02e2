package dev.baton.confignode.procedures;

import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.meta.ClusterMetadata.DataNode;
import dev.baton.confignode.meta.ClusterMetadata.Region;
import dev.baton.procedure.scheduler.LockRequest;
import dev.baton.procedure.scheduler.ResourceKey;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Deletes a database: invalidate its schema cache on every DataNode, delete every region replica,
 * then delete its metadata. Once regions are being deleted there is no way back: those steps are
 * retried with backoff instead of rolled back.
 */
public final class DeleteDatabase extends ConfigNodeProcedure<DeleteDatabase.S> {
  enum S {
    VALIDATE,
    INVALIDATE_CACHE,
    DELETE_REGIONS,
    DELETE_METADATA
  }

  String name;
  List<Region> regions = new ArrayList<>();

  public DeleteDatabase() {
    super(S.class);
  }

  public DeleteDatabase(String name) {
    this();
    Validation.databaseName(name);
    this.name = name;
  }

  public String databaseName() {
    return name;
  }

  @Override
  protected LockRequest lockRequest(ConfigNodeEnv env) {
    return LockRequest.exclusive(ResourceKey.database(name));
  }

  @Override
  protected Flow executeFromState(ConfigNodeEnv env, S state) throws InterruptedException {
    try {
      switch (state) {
        case VALIDATE -> {
          ClusterMetadata.View view = env.metadata().local();
          var db = view.database(name);
          if (db.isEmpty()) {
            setFailure("DeleteDatabase", new IllegalStateException("no database " + name));
            return Flow.NO_MORE_STATE;
          }
          regions.clear();
          for (int id : db.get().regionIds()) {
            view.region(id).ifPresent(regions::add);
          }
          return next(state);
        }
        case INVALIDATE_CACHE -> {
          for (DataNode dn : env.metadata().local().dataNodes()) {
            env.dataNode(dn.address())
                .invalidateCache(env.command(this, "INVALIDATE_CACHE@dn" + dn.id()), name);
          }
          return next(state);
        }
        case DELETE_REGIONS -> {
          for (Region r : regions) {
            for (int dn : r.replicas()) {
              env.dataNode(dn)
                  .deleteRegion(
                      env.command(this, "DELETE_REGIONS/r" + r.id() + "@dn" + dn), r.id());
            }
          }
          return next(state);
        }
        case DELETE_METADATA -> {
          List<String> deletes = new ArrayList<>();
          for (Region r : regions) {
            deletes.add(ClusterMetadata.key(r));
          }
          deletes.add(ClusterMetadata.DATABASES + name);
          env.writeMetadata(Map.of(), deletes);
          return Flow.NO_MORE_STATE;
        }
      }
    } catch (IOException e) {
      return failed("DeleteDatabase " + name + " " + state, e);
    }
    return Flow.NO_MORE_STATE;
  }

  @Override
  protected boolean isRollbackSupported(S state) {
    return state == S.VALIDATE || state == S.INVALIDATE_CACHE;
  }

  @Override
  protected void rollbackState(ConfigNodeEnv env, S state) {
    // validation and cache invalidation change nothing that needs undoing
  }

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeUTF(name);
    RegionCodec.write(out, regions);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    name = in.readUTF();
    regions = RegionCodec.readList(in);
  }
}
