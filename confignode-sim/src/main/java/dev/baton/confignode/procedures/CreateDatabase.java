package dev.baton.confignode.procedures;

import dev.baton.confignode.datanode.RegionKind;
import dev.baton.confignode.datanode.RegionRole;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.meta.ClusterMetadata.DataNode;
import dev.baton.confignode.meta.ClusterMetadata.Region;
import dev.baton.procedure.scheduler.LockRequest;
import dev.baton.procedure.scheduler.ResourceKey;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Creates a database: validate the name, allocate schema and data regions across the active
 * DataNodes (fewest regions first), create every replica on its DataNode, then commit the metadata.
 * Rollback deletes the replicas it created.
 */
public final class CreateDatabase extends ConfigNodeProcedure<CreateDatabase.S> {
  enum S {
    VALIDATE,
    ALLOCATE,
    CREATE_REGIONS,
    COMMIT
  }

  /** Region ids are procId × this + index, so a procedure's ids never collide with another's. */
  static final int MAX_REGIONS = 64;

  String name;
  int schemaRegions;
  int dataRegions;
  int replication;
  List<Region> allocation = new ArrayList<>();

  public CreateDatabase() {
    super(S.class);
  }

  public CreateDatabase(String name, int schemaRegions, int dataRegions, int replication) {
    this();
    Validation.databaseName(name);
    Validation.range("schemaRegions", schemaRegions, 1, MAX_REGIONS);
    Validation.range("dataRegions", dataRegions, 1, MAX_REGIONS - schemaRegions);
    Validation.range("replication", replication, 1, MAX_REGIONS);
    this.name = name;
    this.schemaRegions = schemaRegions;
    this.dataRegions = dataRegions;
    this.replication = replication;
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
          if (env.metadata().local().database(name).isPresent()) {
            setFailure("CreateDatabase", new IllegalStateException("database " + name + " exists"));
            return Flow.NO_MORE_STATE;
          }
          return next(state);
        }
        case ALLOCATE -> {
          allocate(env.metadata().local());
          return next(state);
        }
        case CREATE_REGIONS -> {
          for (Region r : allocation) {
            for (int dn : r.replicas()) {
              RegionRole role = dn == r.leader() ? RegionRole.LEADER : RegionRole.FOLLOWER;
              env.dataNode(dn)
                  .createRegion(
                      env.command(this, "CREATE_REGIONS/r" + r.id() + "@dn" + dn),
                      r.id(),
                      name,
                      r.kind(),
                      role);
            }
          }
          return next(state);
        }
        case COMMIT -> {
          Map<String, Object> puts = new LinkedHashMap<>();
          List<Integer> ids = new ArrayList<>();
          for (Region r : allocation) {
            puts.put(ClusterMetadata.key(r), r);
            ids.add(r.id());
          }
          ClusterMetadata.Database db = new ClusterMetadata.Database(name, ids);
          puts.put(ClusterMetadata.key(db), db);
          env.writeMetadata(puts, List.of());
          return Flow.NO_MORE_STATE;
        }
      }
    } catch (IOException e) {
      return failed("CreateDatabase " + name + " " + state, e);
    }
    return Flow.NO_MORE_STATE;
  }

  private void allocate(ClusterMetadata.View view) {
    List<DataNode> active =
        new ArrayList<>(
            view.dataNodes().stream().filter(d -> d.status() == DataNode.Status.ACTIVE).toList());
    if (active.size() < replication) {
      setFailure(
          "CreateDatabase",
          new IllegalStateException(
              "replication "
                  + replication
                  + " needs "
                  + replication
                  + " active DataNodes, "
                  + active.size()
                  + " registered"));
      return;
    }
    Map<Integer, Integer> load = new HashMap<>();
    for (DataNode d : active) {
      load.put(d.id(), 0);
    }
    for (Region r : view.regions()) {
      for (int dn : r.replicas()) {
        load.computeIfPresent(dn, (k, v) -> v + 1);
      }
    }
    allocation.clear();
    int total = schemaRegions + dataRegions;
    for (int i = 0; i < total; i++) {
      active.sort(
          Comparator.comparingInt((DataNode d) -> load.get(d.id())).thenComparingInt(DataNode::id));
      List<Integer> replicas = new ArrayList<>();
      for (int k = 0; k < replication; k++) {
        int dn = active.get(k).id();
        replicas.add(dn);
        load.merge(dn, 1, Integer::sum);
      }
      RegionKind kind = i < schemaRegions ? RegionKind.SCHEMA : RegionKind.DATA;
      int id = (int) (getProcId() * MAX_REGIONS + i);
      allocation.add(new Region(id, name, kind, replicas, replicas.get(0)));
    }
  }

  @Override
  protected void rollbackState(ConfigNodeEnv env, S state)
      throws IOException, InterruptedException {
    if (state == S.CREATE_REGIONS || state == S.COMMIT) {
      if (state == S.COMMIT) {
        List<String> deletes = new ArrayList<>();
        for (Region r : allocation) {
          deletes.add(ClusterMetadata.key(r));
        }
        deletes.add(ClusterMetadata.DATABASES + name);
        env.writeMetadata(Map.of(), deletes);
        return;
      }
      for (Region r : allocation) {
        for (int dn : r.replicas()) {
          env.dataNode(dn)
              .deleteRegion(
                  env.command(this, "UNDO_CREATE_REGIONS/r" + r.id() + "@dn" + dn), r.id());
        }
      }
    }
  }

  @Override
  protected void serializeStateData(DataOutputStream out) throws IOException {
    out.writeUTF(name);
    out.writeInt(schemaRegions);
    out.writeInt(dataRegions);
    out.writeInt(replication);
    RegionCodec.write(out, allocation);
  }

  @Override
  protected void deserializeStateData(DataInputStream in) throws IOException {
    name = in.readUTF();
    schemaRegions = in.readInt();
    dataRegions = in.readInt();
    replication = in.readInt();
    allocation = RegionCodec.readList(in);
  }
}
