package dev.baton.it;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.http.Json;
import java.util.List;

/**
 * The ConfigNode fault holds of a process cluster started with {@code --faults}: kill points at
 * states that send no DataNode command. A hold lives in one node's memory; a node restarted (or
 * newly leading) holds only what was set on it.
 */
final class Holds {
  static final String PATH = "/api/faults/hold";

  /** The node flag that turns the fault routes on. */
  static final List<String> FAULTS = List.of("--faults");

  /** A hold: procedures of {@code type} stop before {@code state}. */
  record Hold(String type, String state) {}

  private Holds() {}

  private static NodeApiClient node(ProcessCluster cluster, String nodeId) {
    return cluster.client(cluster.http(nodeId));
  }

  /** Sets exactly {@code holds} on {@code nodeId} (its other holds released). */
  static void arm(ProcessCluster cluster, String nodeId, Hold... holds) throws Exception {
    NodeApiClient api = node(cluster, nodeId);
    api.delete(PATH);
    for (Hold h : holds) {
      ObjectNode body = Json.LENIENT.createObjectNode();
      body.put("type", h.type());
      body.put("state", h.state());
      api.post(PATH, body);
    }
  }

  /**
   * Sets exactly {@code holds} on every serving node but {@code leader}: whichever of them leads
   * after the leader is killed holds there, and nowhere earlier.
   */
  static void armFollowers(ProcessCluster cluster, String leader, Hold... holds) throws Exception {
    for (String id : cluster.servingNodes()) {
      if (!id.equals(leader)) {
        arm(cluster, id, holds);
      }
    }
  }

  /** Sets exactly {@code holds} on every serving node. */
  static void armAll(ProcessCluster cluster, Hold... holds) throws Exception {
    armFollowers(cluster, null, holds);
  }

  /** {@code --hold TYPE:STATE}: a restarted node holds before it runs a step. */
  static List<String> atStart(Hold h) {
    return List.of("--hold", h.type() + ":" + h.state());
  }

  /**
   * Waits until the leader holds a procedure of the hold's type at its state ({@code procId}, or
   * any if 0), and that procedure shows the state as its step; returns the procedure's id (e.g. a
   * child's, unknown before).
   */
  static long awaitHeld(ProcessCluster cluster, Hold h, long procId) {
    long[] held = {0};
    await((procId == 0 ? "a " + h.type() : "procedure " + procId) + " held before " + h.state())
        .atMost(Drills.REACH)
        .pollInterval(Drills.POLL)
        .ignoreExceptions()
        .until(
            () -> {
              for (JsonNode p : node(cluster, cluster.leader()).get(PATH).path("held")) {
                long id = p.path("procId").asLong();
                if ((procId == 0 || id == procId)
                    && p.path("type").asText().equals(h.type())
                    && p.path("state").asText().equals(h.state())
                    && h.state().equals(cluster.procedures().get(id).path("step").asText())) {
                  held[0] = id;
                  return true;
                }
              }
              return false;
            });
    return held[0];
  }
}
