package dev.baton.confignode.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.cluster.HistoryRecorder;
import dev.baton.confignode.cluster.ProcessCluster;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The steady mixed workload of a chaos run, on its own thread: no-ops, short sleeps, databases
 * created and deleted, region migrations, each submitted with a nonce and retried with the same
 * nonce while no node can take it. What it chooses comes from the seed; when it runs depends on the
 * cluster.
 */
final class ChaosWorkload extends PacedLoop {
  /** Pause between two submissions, at least and at most. */
  static final long MIN_PACE_MILLIS = 30;

  static final long MAX_PACE_MILLIS = 200;

  /** How long a Sleep procedure waits, at most. */
  static final int MAX_SLEEP_MILLIS = 1_500;

  /** Out of 100: the share of each kind, cumulatively (noop, sleep, create, delete, migrate). */
  static final int[] CUMULATIVE_WEIGHTS = {25, 45, 65, 75, 100};

  /** Mixed into the seed so the workload's choices do not mirror the fault schedule's. */
  static final long SEED_SALT = 0x5DEECE66DL;

  /** A submission: what was asked, so an unacknowledged nonce can be asked again. */
  record Submission(long nonce, String type, JsonNode args) {}

  private final ProcessCluster cluster;
  private final Map<Long, Submission> attempted = new LinkedHashMap<>();
  private final List<String> databases = new ArrayList<>();
  private final Set<Long> unacknowledged = new HashSet<>();
  private long nextNonce;
  private int nextDatabase;

  ChaosWorkload(ProcessCluster cluster, long seed) {
    super(new Random(seed ^ SEED_SALT), MIN_PACE_MILLIS, MAX_PACE_MILLIS, "workload submission");
    this.cluster = cluster;
  }

  @Override
  void step() throws IOException, InterruptedException {
    Submission s = next();
    synchronized (this) {
      attempted.put(s.nonce(), s);
      unacknowledged.add(s.nonce());
    }
    cluster.procedures().submit(s.type(), s.args(), s.nonce());
    synchronized (this) {
      unacknowledged.remove(s.nonce());
    }
  }

  private Submission next() throws IOException, InterruptedException {
    Random random = random();
    long nonce = ++nextNonce;
    int roll = random.nextInt(CUMULATIVE_WEIGHTS[CUMULATIVE_WEIGHTS.length - 1]);
    if (roll < CUMULATIVE_WEIGHTS[0]) {
      return new Submission(nonce, "Noop", null);
    }
    if (roll < CUMULATIVE_WEIGHTS[1]) {
      return new Submission(
          nonce, "Sleep", ClusterProcedures.args("millis", random.nextInt(MAX_SLEEP_MILLIS)));
    }
    if (roll < CUMULATIVE_WEIGHTS[2] || databases.isEmpty()) {
      String name = "chaos" + nextDatabase++;
      databases.add(name);
      return new Submission(nonce, "CreateDatabase", ClusterProcedures.args("name", name));
    }
    if (roll < CUMULATIVE_WEIGHTS[3]) {
      String name = databases.remove(random.nextInt(databases.size()));
      return new Submission(nonce, "DeleteDatabase", ClusterProcedures.args("name", name));
    }
    JsonNode move =
        migration(
            cluster
                .procedures()
                .history()
                .readMetadata(HistoryRecorder.ANY_NODE, () -> cluster.api().get("/api/metadata")));
    return move == null
        ? new Submission(nonce, "Noop", null)
        : new Submission(nonce, "MigrateRegion", move);
  }

  /** A random region moved from a random replica to a random DataNode that has none. */
  private JsonNode migration(JsonNode meta) {
    Random random = random();
    List<Integer> dataNodes = new ArrayList<>();
    meta.get("dataNodes").forEach(d -> dataNodes.add(d.get("id").asInt()));
    JsonNode regions = meta.get("regions");
    if (regions.isEmpty() || dataNodes.isEmpty()) {
      return null;
    }
    JsonNode r = regions.get(random.nextInt(regions.size()));
    List<Integer> replicas = new ArrayList<>();
    r.get("replicas").forEach(x -> replicas.add(x.asInt()));
    List<Integer> targets = new ArrayList<>(dataNodes);
    targets.removeAll(replicas);
    if (targets.isEmpty() || replicas.isEmpty()) {
      return null;
    }
    return ClusterProcedures.args(
        "regionId",
        r.get("id").asInt(),
        "from",
        replicas.get(random.nextInt(replicas.size())),
        "to",
        targets.get(random.nextInt(targets.size())));
  }

  synchronized int attemptedCount() {
    return attempted.size();
  }

  /**
   * Submissions not acknowledged (yet), to ask again with the same nonce once the cluster is quiet.
   */
  synchronized List<Submission> unacknowledged() {
    return unacknowledged.stream().map(attempted::get).toList();
  }
}
