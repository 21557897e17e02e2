package dev.baton.confignode.drill;

import static dev.baton.confignode.drill.DrillWorkload.args;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.waits.ConfigNodeWaits;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The drill's ConfigNode membership phases, each a procedure submitted through the workload (so the
 * history and the invariants count it) while other procedures run: the killed leader's disk wiped
 * and the node replaced under a new id ({@code ReplaceConfigNode}); a follower removed ({@code
 * RemoveConfigNode}, it stops by itself) and a fresh node added in its place under a new id ({@code
 * AddConfigNode}): a removed id is never added again, so an operator re-adds a retired host by
 * wiping its data directory and starting it with {@code node --join} under a new id. Each change
 * goes into the membership timeline with the members once it finished.
 */
final class MembershipPhases {
  private final ProcessCluster cluster;
  private final DrillWorkload workload;
  private final DrillReport report;

  /** Changes submitted and not yet entered in the timeline. */
  private final List<Pending> pending = new ArrayList<>();

  MembershipPhases(ProcessCluster cluster, DrillWorkload workload, DrillReport report) {
    this.cluster = cluster;
    this.workload = workload;
    this.report = report;
  }

  /** A submitted change: when (epoch ms), what, its procedure. */
  private record Pending(long at, String change, long procId) {}

  /**
   * Starts the node that will replace the leader, as a joining node, without waiting for it: its
   * JVM starts while the workload runs, so the replacement follows the kill at once.
   */
  String startReplacement() throws IOException {
    String id = nextId();
    cluster.startJoiningNode(id);
    return id;
  }

  /**
   * Wipes the killed node's data directory and replaces it with {@code fresh} (from {@link
   * #startReplacement}) once that answers; does not wait for the change (see {@link
   * #awaitChanges}).
   */
  void replaceKilled(String killed, String fresh) throws IOException, InterruptedException {
    cluster.wipeDataDir(killed);
    cluster.awaitAnswering(fresh);
    String change = "replace " + killed + " (disk wiped) by " + fresh;
    report.progress("%s", change);
    submit(
        change,
        "replace",
        args("oldId", killed, "newId", fresh, "address", cluster.raftAddress(fresh)));
  }

  /**
   * Removes a follower, waits until its process stopped by itself, and adds a fresh node in its
   * place under a new id; waits for each change.
   */
  void removeAndReAddFollower() throws IOException, InterruptedException {
    String leader = cluster.leader();
    Set<String> members = members();
    String follower =
        members.stream()
            .filter(id -> !id.equals(leader))
            .findFirst()
            .orElseThrow(() -> new IOException("no follower to remove among " + members));
    String removal = "remove " + follower;
    report.progress("%s", removal);
    submit(removal, "remove", args("id", follower));
    awaitChanges();
    ConfigNodeWaits.clusterPoll(ConfigNodeWaits.CLUSTER_WAIT, follower + " stopping by itself")
        .untilTrue(() -> cluster.hasExited(follower));
    cluster.wipeDataDir(follower);
    String fresh = startNewNode();
    String addition = "add " + fresh + " in place of " + follower;
    report.progress("%s", addition);
    submit(addition, "add", args("id", fresh, "address", cluster.raftAddress(fresh)));
    awaitChanges();
  }

  /** Waits for every change submitted so far and enters it in the timeline with the members. */
  void awaitChanges() throws IOException, InterruptedException {
    for (Pending p : pending) {
      JsonNode done = workload.awaitFinished(p.procId());
      report.membership.add(
          String.format(
              Locale.ROOT,
              "%7.1f s  %-40s %s; members %s",
              (p.at() - report.started) / DrillReport.MILLIS_PER_SECOND,
              p.change(),
              done.path("state").asText(),
              members()));
    }
    pending.clear();
  }

  private void submit(String change, String action, JsonNode body)
      throws IOException, InterruptedException {
    long at = System.currentTimeMillis();
    pending.add(new Pending(at, change, workload.submitMembership(change, action, body)));
  }

  private String nextId() {
    return "cn" + (cluster.nodeIds().size() + 1);
  }

  /** Starts the next ConfigNode id as a joining node and waits until it answers. */
  private String startNewNode() throws IOException, InterruptedException {
    String id = nextId();
    cluster.startJoiningNode(id);
    cluster.awaitAnswering(id);
    return id;
  }

  /** The group's members as the running leader lists them. */
  private Set<String> members() throws IOException, InterruptedException {
    Set<String> ids = new TreeSet<>();
    for (JsonNode m : cluster.cluster(cluster.leader()).path("members")) {
      ids.add(m.path("id").asText());
    }
    return ids;
  }
}
