package dev.baton.confignode.meta;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.baton.confignode.datanode.RegionKind;
import dev.baton.consensus.LeaderContext;
import dev.baton.consensus.ReplicatedMetadata;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;

/**
 * The ConfigNode's metadata (databases, regions, DataNodes, ConfigNodes added or removed) as JSON
 * entries of the replicated metadata map: {@code db/<name>}, {@code region/<id>}, {@code
 * datanode/<id>}, {@code confignode/<id>}. Changed only by procedure steps, through {@link #write}
 * with the step's leader context; besides, each leader publishes its admin API address under {@link
 * #LEADER_ADMIN}.
 */
public final class ClusterMetadata {
  public static final String DATABASES = "db/";
  public static final String REGIONS = "region/";
  public static final String DATANODES = "datanode/";

  /** ConfigNodes added or removed by membership procedures ({@link ConfigNode}). */
  public static final String CONFIGNODES = "confignode/";

  /**
   * Where the leader of the latest term serves its admin API ({@link LeaderAdmin}), so that
   * followers can forward requests only the leader's executor can answer.
   */
  public static final String LEADER_ADMIN = "admin/leader";

  static final ObjectMapper JSON =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  /** A database and its regions. */
  public record Database(String name, List<Integer> regionIds) {}

  /** A region: its replicas (DataNode ids) and which one leads. */
  public record Region(
      int id, String database, RegionKind kind, List<Integer> replicas, int leader) {
    public Region withReplicas(List<Integer> replicas, int leader) {
      return new Region(id, database, kind, List.copyOf(replicas), leader);
    }
  }

  /** A registered DataNode. */
  public record DataNode(int id, String address, Status status) {
    public enum Status {
      ACTIVE,
      REMOVING
    }

    public DataNode withStatus(Status s) {
      return new DataNode(id, address, s);
    }
  }

  /**
   * A ConfigNode a membership procedure added or removed. A removed one stays, as REMOVED: its id
   * is never used again, since a node that lost its storage under it could vote twice in a term.
   * The members the cluster started with are not recorded until a change touches them; the Raft
   * group's configuration is the authority on who is a member now.
   *
   * @param address its Raft address, host:port
   */
  public record ConfigNode(String id, String address, Status status) {
    public enum Status {
      ACTIVE,
      REMOVED
    }
  }

  /** The admin API address the leader of {@code term} published. */
  public record LeaderAdmin(String nodeId, long term, String address) {}

  /** A read view of the metadata (this node's applied state, or a linearizable read). */
  public record View(SortedMap<String, byte[]> entries) {
    public Optional<Database> database(String name) {
      return get(DATABASES + name, Database.class);
    }

    public Optional<Region> region(int id) {
      return get(REGIONS + id, Region.class);
    }

    public Optional<DataNode> dataNode(int id) {
      return get(DATANODES + id, DataNode.class);
    }

    public Optional<ConfigNode> configNode(String id) {
      return get(CONFIGNODES + id, ConfigNode.class);
    }

    public List<ConfigNode> configNodes() {
      return all(CONFIGNODES, ConfigNode.class);
    }

    public Optional<LeaderAdmin> leaderAdmin() {
      return get(LEADER_ADMIN, LeaderAdmin.class);
    }

    public List<Database> databases() {
      return all(DATABASES, Database.class);
    }

    public List<Region> regions() {
      return all(REGIONS, Region.class);
    }

    public List<DataNode> dataNodes() {
      return all(DATANODES, DataNode.class);
    }

    private <T> Optional<T> get(String key, Class<T> type) {
      byte[] v = entries.get(key);
      return v == null ? Optional.empty() : Optional.of(parse(v, type));
    }

    private <T> List<T> all(String prefix, Class<T> type) {
      List<T> out = new ArrayList<>();
      for (Map.Entry<String, byte[]> e : entries.entrySet()) {
        if (e.getKey().startsWith(prefix)) {
          out.add(parse(e.getValue(), type));
        }
      }
      return out;
    }
  }

  private final ReplicatedMetadata replicated;

  public ClusterMetadata(ReplicatedMetadata replicated) {
    this.replicated = replicated;
  }

  /** This node's applied metadata (on the leader: including its own committed writes). */
  public View local() {
    return new View(replicated.local(""));
  }

  /** Puts the given objects under their keys and deletes keys, atomically and fenced by term. */
  public void write(LeaderContext leader, Map<String, Object> puts, Collection<String> deletes)
      throws IOException {
    java.util.Map<String, byte[]> bytes = new java.util.HashMap<>();
    for (Map.Entry<String, Object> e : puts.entrySet()) {
      bytes.put(e.getKey(), JSON.writeValueAsBytes(e.getValue()));
    }
    replicated.write(leader, bytes, deletes);
  }

  public static String key(Database d) {
    return DATABASES + d.name();
  }

  public static String key(Region r) {
    return REGIONS + r.id();
  }

  public static String key(DataNode d) {
    return DATANODES + d.id();
  }

  public static String key(ConfigNode c) {
    return CONFIGNODES + c.id();
  }

  static <T> T parse(byte[] bytes, Class<T> type) {
    try {
      return JSON.readValue(bytes, type);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "unreadable metadata entry of type " + type.getSimpleName(), e);
    }
  }
}
