package dev.baton.confignode.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.http.Json;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.procedure.util.Poll;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Procedures of a {@link ProcessCluster}: submissions with nonces of {@link #NONCE_GROUP}, retried
 * with the same nonce while no node can take them, the acknowledged ones remembered for the
 * invariant check; reads of and waits on procedures. Every submission and read of a procedure is
 * recorded in {@link #history()} for the history checker. Thread-safe.
 */
public final class ClusterProcedures {
  /** Nonce group of this harness's submissions. */
  public static final long NONCE_GROUP = 4242;

  private final Supplier<NodeApiClient> api;
  private final AtomicLong nonces = new AtomicLong();
  private final Map<Long, Long> acked = new LinkedHashMap<>();
  private final HistoryRecorder history = new HistoryRecorder();

  ClusterProcedures(Supplier<NodeApiClient> api) {
    this.api = api;
  }

  /**
   * Submits with a fresh nonce of {@link #NONCE_GROUP}, retrying (same nonce) while no node can
   * take it; returns the procId and remembers the pair for {@link #acknowledged()}.
   */
  public long submit(String type, JsonNode args) throws IOException, InterruptedException {
    return submit(type, args, nextNonce());
  }

  /** Submits with a given nonce of {@link #NONCE_GROUP}, retried while no node can take it. */
  public long submit(String type, JsonNode args, long nonce)
      throws IOException, InterruptedException {
    return submitThrough(type, args, nonce, api);
  }

  /**
   * As {@link #submit(String, JsonNode, long)}, through {@code via} (a client of some of the nodes,
   * e.g. those on one side of a partition).
   */
  public long submit(String type, JsonNode args, long nonce, NodeApiClient via)
      throws IOException, InterruptedException {
    return submitThrough(type, args, nonce, () -> via);
  }

  private long submitThrough(String type, JsonNode args, long nonce, Supplier<NodeApiClient> via)
      throws IOException, InterruptedException {
    long id =
        history.submit(
            HistoryRecorder.ANY_NODE,
            nonce,
            type,
            args,
            () ->
                Poll.every(ConfigNodeWaits.CLUSTER_POLL)
                    .within(ConfigNodeWaits.SUBMIT_PATIENCE)
                    .notYetIf(
                        NodeApiClient.ApiException.class, NodeApiClient.ApiException::retryable)
                    .retry(() -> via.get().submit(type, args, NONCE_GROUP, nonce)));
    synchronized (this) {
      acked.put(nonce, id);
    }
    return id;
  }

  /**
   * A fresh nonce of {@link #NONCE_GROUP}, for a submission made elsewhere (to one node directly)
   * and resolved later with {@link #submit(String, JsonNode, long)}.
   */
  public long nextNonce() {
    return nonces.incrementAndGet();
  }

  /** Every acknowledged submission: nonce to procId. */
  public synchronized Map<Long, Long> acknowledged() {
    return Map.copyOf(acked);
  }

  /** The recorder of this harness's submissions and reads. */
  public HistoryRecorder history() {
    return history;
  }

  /** {@code GET /api/procedures/{id}}. */
  public JsonNode get(long procId) throws IOException, InterruptedException {
    return history.readProcedure(
        HistoryRecorder.ANY_NODE, procId, () -> api.get().get("/api/procedures/" + procId));
  }

  /** Waits until {@code check} holds for the procedure's view; returns that view. */
  public JsonNode await(long procId, Check check, Duration timeout, String what)
      throws IOException, InterruptedException {
    return ConfigNodeWaits.clusterPoll(timeout, "procedure " + procId + ": " + what)
        .until(
            () -> {
              JsonNode p = get(procId);
              return check.test(p) ? p : null;
            });
  }

  /**
   * Waits until the procedure is terminal (long polls, {@link NodeApiClient#awaitFinished});
   * returns its view.
   */
  public JsonNode awaitFinished(long procId, Duration timeout)
      throws IOException, InterruptedException {
    JsonNode view = api.get().awaitFinished(procId, timeout);
    if (!view.path("finished").asBoolean()) {
      throw new IOException(
          "procedure " + procId + " has not finished within " + timeout + ": " + view);
    }
    return view;
  }

  /** Waits until every procedure the cluster knows is terminal. */
  public void awaitAllFinished(Duration timeout) throws IOException, InterruptedException {
    ConfigNodeWaits.clusterPoll(timeout, "every procedure terminal")
        .untilTrue(
            () -> {
              for (JsonNode p : api.get().listProcedures("")) {
                if (!p.get("finished").asBoolean()) {
                  return false;
                }
              }
              return true;
            });
  }

  /** A test on a procedure's JSON view. */
  public interface Check {
    boolean test(JsonNode procedure);
  }

  /** A JSON object of alternating names and values, e.g. {@code args("name", "db1")}. */
  public static JsonNode args(Object... kv) {
    ObjectNode n = Json.LENIENT.createObjectNode();
    for (int i = 0; i < kv.length; i += 2) {
      n.set((String) kv[i], Json.LENIENT.valueToTree(kv[i + 1]));
    }
    return n;
  }
}
