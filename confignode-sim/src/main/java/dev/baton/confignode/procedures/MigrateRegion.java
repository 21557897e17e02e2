package dev.baton.confignode.procedures;

import dev.baton.confignode.datanode.RegionRole;
import dev.baton.confignode.meta.ClusterMetadata;
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
 * Moves one replica of a region from one DataNode to another: add a peer on the target, let it
 * catch up, hand leadership over if the source led, remove the source replica, then record the new
 * placement. Until the source replica is removed everything is undone on rollback; after that the
 * remaining steps are retried instead.
 */
public final class MigrateRegion extends ConfigNodeProcedure<MigrateRegion.S> {
  enum S {
    VALIDATE,
    ADD_PEER,
    CATCH_UP,
    SWITCH_LEADER,
    REMOVE_FROM_SOURCE,
    UPDATE_METADATA
  }

  int regionId;
  int from;
  int to;
  Region region;

  public MigrateRegion() {
    super(S.class);
  }

  public MigrateRegion(int regionId, int from, int to) {
    this();
    if (from == to) {
      throw new IllegalArgumentException("source and target DataNode are both " + from);
    }
    this.regionId = regionId;
    this.from = from;
    this.to = to;
  }

  /** The region (its database shared), and both DataNodes shared. */
  @Override
  protected LockRequest lockRequest(ConfigNodeEnv env) {
    String database =
        region != null
            ? region.database()
            : env.metadata().local().region(regionId).map(Region::database).orElse(null);
    LockRequest.Builder b =
        LockRequest.builder()
            .shared(ResourceKey.node(Integer.toString(from)))
            .shared(ResourceKey.node(Integer.toString(to)));
    if (database != null) {
      b.exclusive(ResourceKey.region(database, Integer.toString(regionId)));
    }
    return b.build();
  }

  @Override
  protected Flow executeFromState(ConfigNodeEnv env, S state) throws InterruptedException {
    try {
      switch (state) {
        case VALIDATE -> {
          ClusterMetadata.View view = env.metadata().local();
          Region r = view.region(regionId).orElse(null);
          String problem =
              r == null
                  ? "no region " + regionId
                  : !r.replicas().contains(from)
                      ? "region " + regionId + " has no replica on DataNode " + from
                      : r.replicas().contains(to)
                          ? "region " + regionId + " already has a replica on DataNode " + to
                          : view.dataNode(to).isEmpty() ? "no DataNode " + to : null;
          if (problem != null) {
            setFailure("MigrateRegion", new IllegalStateException(problem));
            return Flow.NO_MORE_STATE;
          }
          region = r;
          return next(state);
        }
        case ADD_PEER -> {
          env.dataNode(to)
              .createRegion(
                  env.command(this, "ADD_PEER"),
                  regionId,
                  region.database(),
                  region.kind(),
                  RegionRole.FOLLOWER);
          return next(state);
        }
        case CATCH_UP -> {
          env.dataNode(to).syncRegion(env.command(this, "CATCH_UP"), regionId, getProcId());
          return next(state);
        }
        case SWITCH_LEADER -> {
          if (region.leader() == from) {
            env.dataNode(to)
                .setRegionRole(
                    env.command(this, "SWITCH_LEADER@target"), regionId, RegionRole.LEADER);
            env.dataNode(from)
                .setRegionRole(
                    env.command(this, "SWITCH_LEADER@source"), regionId, RegionRole.FOLLOWER);
          }
          return next(state);
        }
        case REMOVE_FROM_SOURCE -> {
          env.dataNode(from).deleteRegion(env.command(this, "REMOVE_FROM_SOURCE"), regionId);
          return next(state);
        }
        case UPDATE_METADATA -> {
          List<Integer> replicas = new ArrayList<>(region.replicas());
          replicas.set(replicas.indexOf(from), to);
          int leader = region.leader() == from ? to : region.leader();
          Region moved = region.withReplicas(replicas, leader);
          env.writeMetadata(Map.of(ClusterMetadata.key(moved), moved), List.of());
          return Flow.NO_MORE_STATE;
        }
      }
    } catch (IOException e) {
      return failed("MigrateRegion " + regionId + " " + state, e);
    }
    return Flow.NO_MORE_STATE;
  }

  @Override
  protected boolean isRollbackSupported(S state) {
    return state.ordinal() < S.REMOVE_FROM_SOURCE.ordinal();
  }

  @Override
  protected void rollbackState(ConfigNodeEnv env, S state)
      throws IOException, InterruptedException {
    switch (state) {
      case ADD_PEER -> env.dataNode(to).deleteRegion(env.command(this, "UNDO_ADD_PEER"), regionId);
      case SWITCH_LEADER -> {
        if (region != null && region.leader() == from) {
          env.dataNode(from)
              .setRegionRole(
                  env.command(this, "UNDO_SWITCH_LEADER@source"), regionId, RegionRole.LEADER);
          env.dataNode(to)
              .setRegionRole(
                  env.command(this, "UNDO_SWITCH_LEADER@target"), regionId, RegionRole.FOLLOWER);
        }
      }
      default -> {
        // nothing to undo
      }
    }
  }

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeInt(regionId);
    out.writeInt(from);
    out.writeInt(to);
    out.writeBoolean(region != null);
    if (region != null) {
      RegionCodec.write(out, region);
    }
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    regionId = in.readInt();
    from = in.readInt();
    to = in.readInt();
    region = in.readBoolean() ? RegionCodec.read(in) : null;
  }
}
