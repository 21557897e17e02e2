package dev.baton.confignode.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a cluster that did not reach a wanted state looks like now, for the error a wait throws:
 * each ConfigNode's own view (role, term, leader) in one line, and a thread dump of every
 * ConfigNode process still alive written to its log, so that a wedged election or executor can be
 * read afterwards (keep the cluster's directory to read them).
 */
final class StuckClusterReport {
  private static final Logger LOG = LoggerFactory.getLogger(StuckClusterReport.class);

  /** A node's view of the cluster ({@code GET /api/cluster} of that node). */
  @FunctionalInterface
  interface ClusterView {
    JsonNode of(String nodeId) throws IOException, InterruptedException;
  }

  private StuckClusterReport() {}

  /**
   * {@code cn1: gone; cn2: FOLLOWER term 7 leader none commit 40 applied 40; ...}, after asking
   * every live process of {@code nodes} for a thread dump.
   */
  static String describe(Map<String, ChildJvm> nodes, ClusterView view)
      throws InterruptedException {
    List<String> parts = new ArrayList<>();
    for (Map.Entry<String, ChildJvm> e : nodes.entrySet()) {
      String id = e.getKey();
      ChildJvm p = e.getValue();
      if (p == null || !p.isAlive()) {
        parts.add(id + ": gone");
        continue;
      }
      if (p.isPaused()) {
        parts.add(id + ": paused");
        continue;
      }
      parts.add(id + ": " + viewOf(id, view));
      try {
        p.dumpThreads();
      } catch (IOException e1) {
        LOG.warn("No thread dump of {}: {}", id, e1.getMessage());
      }
    }
    String report = String.join("; ", parts);
    LOG.warn("Cluster now: {} (thread dumps of the live ConfigNodes are in their logs)", report);
    return report;
  }

  private static String viewOf(String id, ClusterView view) throws InterruptedException {
    try {
      JsonNode c = view.of(id);
      JsonNode leader = c.path("leaderId");
      JsonNode executor = c.path("executor");
      String recovery =
          executor.has("recoveryStage")
              ? " recovery "
                  + executor.path("recoveryStage").asText()
                  + " for "
                  + (System.currentTimeMillis() - executor.path("recoveringSinceMillis").asLong())
                  + " ms"
              : "";
      return c.path("role").asText("?")
          + " term "
          + c.path("term").asText("?")
          + " leader "
          + (leader.isTextual() ? leader.asText() : "none")
          + " commit "
          + c.path("commitIndex").asText("?")
          + " applied "
          + c.path("appliedIndex").asText("?")
          + recovery;
    } catch (IOException e) {
      return "no answer (" + e.getMessage() + ")";
    }
  }
}
