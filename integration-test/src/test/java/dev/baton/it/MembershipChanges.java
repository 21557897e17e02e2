package dev.baton.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.cluster.ClusterProcedures;
import dev.baton.confignode.cluster.ProcessCluster;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * ConfigNode membership changes of a process cluster, each submitted with {@code POST
 * /api/membership/ACTION} and a nonce of its own in one group; remembers them (nonce to procId) so
 * the invariant check counts them with the workload's submissions.
 */
final class MembershipChanges {
  private final ProcessCluster cluster;
  private final long nonceGroup;
  private final long firstNonce;
  private final Map<Long, Long> submitted = new ConcurrentHashMap<>();

  /**
   * @param nonceGroup the group of the changes' nonces
   * @param firstNonce the first nonce: far from the workload's, if they share a group
   */
  MembershipChanges(ProcessCluster cluster, long nonceGroup, long firstNonce) {
    this.cluster = cluster;
    this.nonceGroup = nonceGroup;
    this.firstNonce = firstNonce;
  }

  /** Submits a change ({@code add}, {@code remove}, {@code replace}); returns its procId. */
  synchronized long submit(String action, Object... args) throws Exception {
    long nonce = firstNonce + submitted.size();
    ObjectNode body = (ObjectNode) ClusterProcedures.args(args);
    body.set("nonce", ClusterProcedures.args("group", nonceGroup, "nonce", nonce));
    long procId =
        cluster
            .api()
            .retrying(() -> cluster.api().post("/api/membership/" + action, body))
            .get("procId")
            .asLong();
    submitted.put(nonce, procId);
    return procId;
  }

  /** Every change submitted: nonce to procId. */
  Map<Long, Long> submitted() {
    return Map.copyOf(submitted);
  }

  /** The group's members, as the running leader lists them in {@code GET /api/cluster}. */
  static Set<String> members(ProcessCluster cluster) throws Exception {
    Set<String> ids = new TreeSet<>();
    for (JsonNode m : cluster.cluster(cluster.leader()).path("members")) {
      ids.add(m.path("id").asText());
    }
    return ids;
  }
}
