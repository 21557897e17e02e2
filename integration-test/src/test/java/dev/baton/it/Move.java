package dev.baton.it;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.cluster.ProcessCluster;
import java.util.List;

/**
 * A planned region move: a replica of {@code regionId} from DataNode {@code from} to {@code to}.
 */
record Move(int regionId, int from, int to) {

  /**
   * A move of a region led by its source (so every state of MigrateRegion talks to a DataNode) to a
   * DataNode in {@code targets} that holds no replica of it.
   */
  static Move ofLeader(ProcessCluster cluster, List<Integer> targets) throws Exception {
    for (JsonNode r : cluster.api().get("/api/metadata").get("regions")) {
      List<Integer> replicas = Drills.replicas(r);
      for (int to : targets) {
        if (!replicas.contains(to)) {
          return new Move(r.get("id").asInt(), r.get("leader").asInt(), to);
        }
      }
    }
    throw new AssertionError("no region can move to any of " + targets);
  }

  JsonNode args() {
    return ClusterProcedures.args("regionId", regionId, "from", from, "to", to);
  }

  Move reversed() {
    return new Move(regionId, to, from);
  }
}
