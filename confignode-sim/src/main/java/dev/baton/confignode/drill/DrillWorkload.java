package dev.baton.confignode.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.cluster.HistoryRecorder;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.procedure.util.Poll;
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
 * after a failover is one procedure), and the waits for them to finish. The submissions and the
 * reads of the procedure list are recorded in {@link #history()}.
 */
final class DrillWorkload {
  /** Nonce group of the drill's submissions. */
  static final long NONCE_GROUP = 77;

  /** The procedure type of each membership action. */
  static final Map<String, String> MEMBERSHIP_TYPES =
      Map.of("add", "AddConfigNode", "remove", "RemoveConfigNode", "replace", "ReplaceConfigNode");

  private final NodeApiClient api;
  private final DrillReport report;
  private final Map<String, Long> submitted = new LinkedHashMap<>();
  private final HistoryRecorder history = new HistoryRecorder();
  private long nonce;
  private long shownFinished = -1;

  DrillWorkload(NodeApiClient api, DrillReport report) {
    this.api = api;
    this.report = report;
  }

  /** The recorded submissions and reads. */
  HistoryRecorder history() {
    return history;
  }

  /** Procedures submitted so far. */
  int size() {
    return submitted.size();
  }

  void submit(String what, String type, JsonNode args) throws IOException, InterruptedException {
    long n = ++nonce;
    submitted.put(what, recorded(n, type, args, () -> api.submit(type, args, NONCE_GROUP, n)));
  }

  /**
   * A submission with nonce {@code n} recorded in the history, {@code call} retried while no node
   * can take it; returns the procedure id.
   */
  private long recorded(long n, String type, JsonNode args, NodeApiClient.Call<Long> call)
      throws IOException, InterruptedException {
    return history.submit(
        HistoryRecorder.ANY_NODE,
        n,
        type,
        args,
        () ->
            Poll.every(ConfigNodeWaits.DRILL_SUBMIT_RETRY)
                .within(ConfigNodeWaits.CLUSTER_WAIT)
                .notYetIf(NodeApiClient.ApiException.class, NodeApiClient.ApiException::retryable)
                .retry(call::call));
  }

  /**
   * Submits a ConfigNode membership change ({@code POST /api/membership/ACTION}, {@code add},
   * {@code remove} or {@code replace}) with the next nonce, recorded as a submission of its
   * procedure type; returns its procedure id.
   */
  long submitMembership(String what, String action, JsonNode args)
      throws IOException, InterruptedException {
    long n = ++nonce;
    ObjectNode body = args.deepCopy();
    ObjectNode nonceBody = body.putObject("nonce");
    nonceBody.put("group", NONCE_GROUP);
    nonceBody.put("nonce", n);
    long id =
        recorded(
            n,
            MEMBERSHIP_TYPES.get(action),
            args,
            () -> api.post("/api/membership/" + action, body).get("procId").asLong());
    submitted.put(what, id);
    return id;
  }

  /** Waits until procedure {@code id} finished; returns its view. */
  JsonNode awaitFinished(long id) throws IOException, InterruptedException {
    JsonNode view = api.awaitFinished(id, ConfigNodeWaits.DRILL_FINISH_WAIT);
    if (!view.path("finished").asBoolean()) {
      throw new IOException(
          "procedure " + id + " still running after " + ConfigNodeWaits.DRILL_FINISH_WAIT);
    }
    return view;
  }

  /** Root procedures that finished. */
  long finishedCount() throws IOException, InterruptedException {
    long n = 0;
    for (JsonNode p : listProcedures()) {
      if (p.get("finished").asBoolean() && p.get("parentProcId").asLong() < 0) {
        n++;
      }
    }
    return n;
  }

  /**
   * Waits until every procedure (children included) is terminal, printing progress: long polls each
   * submitted procedure until it finished ({@link NodeApiClient#awaitFinished}), then reads the
   * list until every procedure in it is terminal (a failed read means "not yet").
   */
  void awaitAllFinished() throws IOException, InterruptedException {
    shownFinished = -1;
    long deadline = System.nanoTime() + ConfigNodeWaits.DRILL_FINISH_WAIT.toNanos();
    for (long id : submitted.values()) {
      Duration left = Duration.ofNanos(deadline - System.nanoTime());
      if (left.isNegative() || !api.awaitFinished(id, left).path("finished").asBoolean()) {
        break; // the list poll below reports what is still running
      }
    }
    Poll.every(ConfigNodeWaits.DRILL_LIST_POLL)
        .within(ConfigNodeWaits.DRILL_FINISH_WAIT)
        .notYetOn(NodeApiClient.ApiException.class)
        .onTimeout(
            expiry ->
                new IOException(
                    "procedures still running after " + ConfigNodeWaits.DRILL_FINISH_WAIT,
                    expiry.lastFailure()))
        .untilTrue(this::allFinished);
  }

  /** Whether every procedure is terminal; prints the count of finished ones when it changed. */
  private boolean allFinished() throws IOException, InterruptedException {
    JsonNode all = listProcedures();
    long done = 0;
    for (JsonNode p : all) {
      if (p.get("finished").asBoolean()) {
        done++;
      }
    }
    if (done != shownFinished) {
      report.progress("%d of %d procedures finished", done, all.size());
      shownFinished = done;
    }
    return done == all.size() && all.size() >= submitted.size();
  }

  private JsonNode listProcedures() throws IOException, InterruptedException {
    return history.readList(HistoryRecorder.ANY_NODE, () -> api.listProcedures(""));
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
