package dev.baton.confignode.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.cluster.ProcessCluster;
import dev.baton.confignode.http.Json;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The drill's submissions through the admin API: each with its own nonce (a submission retried
 * after a failover is one procedure), and the waits for them to finish.
 */
final class DrillWorkload {
  /** How long the whole workload may take to reach terminal states. */
  static final Duration FINISH_WAIT = Duration.ofMinutes(5);

  /** How often submissions are retried and states looked at. */
  static final Duration POLL = Duration.ofMillis(20);

  /** Nonce group of the drill's submissions. */
  static final long NONCE_GROUP = 77;

  /** Polls of the procedure list are this many cluster polls apart. */
  static final int LIST_POLL_FACTOR = 5;

  private final NodeApiClient api;
  private final DrillReport report;
  private final Map<String, Long> submitted = new LinkedHashMap<>();
  private long nonce;

  DrillWorkload(NodeApiClient api, DrillReport report) {
    this.api = api;
    this.report = report;
  }

  /** Procedures submitted so far. */
  int size() {
    return submitted.size();
  }

  void submit(String what, String type, JsonNode args) throws IOException, InterruptedException {
    long n = ++nonce;
    long deadline = System.nanoTime() + ProcessCluster.CLUSTER_WAIT.toNanos();
    while (true) {
      try {
        submitted.put(what, api.submit(type, args, NONCE_GROUP, n));
        return;
      } catch (NodeApiClient.ApiException e) {
        if (!e.retryable() || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(POLL.toMillis());
      }
    }
  }

  /** Root procedures that finished. */
  long finishedCount() throws IOException, InterruptedException {
    long n = 0;
    for (JsonNode p : api.listProcedures("")) {
      if (p.get("finished").asBoolean() && p.get("parentProcId").asLong() < 0) {
        n++;
      }
    }
    return n;
  }

  /** Waits until every procedure (children included) is terminal, printing progress. */
  void awaitAllFinished() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + FINISH_WAIT.toNanos();
    long lastShown = -1;
    while (true) {
      JsonNode all;
      try {
        all = api.listProcedures("");
      } catch (NodeApiClient.ApiException e) {
        Thread.sleep(POLL.toMillis());
        continue;
      }
      long done = 0;
      for (JsonNode p : all) {
        if (p.get("finished").asBoolean()) {
          done++;
        }
      }
      if (done != lastShown) {
        report.progress("%d of %d procedures finished", done, all.size());
        lastShown = done;
      }
      if (done == all.size() && all.size() >= submitted.size()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("procedures still running after " + FINISH_WAIT);
      }
      Thread.sleep(POLL.toMillis() * LIST_POLL_FACTOR);
    }
  }

  /**
   * Migrations "region,from,to": one per region, of the first {@code keep} databases ({@code
   * db0..}), at most {@code count}.
   */
  static List<String> planMigrations(JsonNode meta, int count, int keep) {
    Set<Integer> dataNodes = new HashSet<>();
    for (JsonNode d : meta.get("dataNodes")) {
      dataNodes.add(d.get("id").asInt());
    }
    List<String> out = new ArrayList<>();
    for (JsonNode r : meta.get("regions")) {
      String db = r.get("database").asText();
      if (Integer.parseInt(db.substring(2)) >= keep || out.size() >= count) {
        continue;
      }
      Set<Integer> replicas = new HashSet<>();
      r.get("replicas").forEach(x -> replicas.add(x.asInt()));
      Integer to = dataNodes.stream().filter(d -> !replicas.contains(d)).findFirst().orElse(null);
      if (to != null) {
        out.add(r.get("id").asInt() + "," + r.get("replicas").get(0).asInt() + "," + to);
      }
    }
    return out;
  }

  static JsonNode args(Object... kv) {
    ObjectNode n = Json.LENIENT.createObjectNode();
    for (int i = 0; i < kv.length; i += 2) {
      n.set((String) kv[i], Json.LENIENT.valueToTree(kv[i + 1]));
    }
    return n;
  }
}
