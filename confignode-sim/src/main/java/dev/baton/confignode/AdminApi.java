package dev.baton.confignode;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.baton.confignode.http.ErrorReply;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.JsonExchange;
import dev.baton.confignode.meta.ClusterMetadata;
import dev.baton.confignode.procedures.ConfigNodeProcedures;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import java.io.IOException;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP admin API of a ConfigNode (API.md), JSON in and out. Any node answers: submissions and
 * aborts go through the replicated log to the leader, reads are linearizable. Bad input gets a 4xx
 * JSON error; an unavailable cluster a 503; never a stack trace.
 */
final class AdminApi implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminApi.class);

  /** Largest request body accepted. */
  static final int MAX_BODY_BYTES = 64 << 10;

  /** Threads serving requests. */
  static final int HTTP_THREADS = 8;

  /** How long a request may wait for the cluster. */
  static final Duration CLUSTER_WAIT = Duration.ofSeconds(15);

  static final String UNAVAILABLE = "unavailable";

  /** A submission: a registered type, its arguments, and an optional nonce for safe retries. */
  record SubmitRequest(String type, JsonNode args, NonceBody nonce) {}

  record NonceBody(long group, long nonce) {}

  /** A procedure as clients see it. */
  record ProcedureView(
      long procId,
      long parentProcId,
      long rootProcId,
      String type,
      ProcedureState state,
      String step,
      boolean finished,
      long submittedTime,
      long lastUpdate,
      String failure,
      String result) {
    static ProcedureView of(ProcedureInfo i) {
      return new ProcedureView(
          i.procId(),
          i.parentProcId(),
          i.rootProcId(),
          i.type(),
          i.state(),
          i.stepName(),
          i.finished(),
          i.submittedTime(),
          i.lastUpdate(),
          i.failure(),
          i.result() == null ? null : new String(i.result(), StandardCharsets.UTF_8));
    }
  }

  private final ProcedureNode<ConfigNodeEnv> node;
  private final ClusterMetadata metadata;
  private HttpServer server;
  private ExecutorService threads;

  AdminApi(ProcedureNode<ConfigNodeEnv> node, ClusterMetadata metadata) {
    this.node = node;
    this.metadata = metadata;
  }

  void start(int port) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    threads = Executors.newFixedThreadPool(HTTP_THREADS);
    server.setExecutor(threads);
    server.createContext("/", this::handle);
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    if (server != null) {
      server.stop(0);
      threads.shutdownNow();
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      URI uri = exchange.getRequestURI();
      String[] path = uri.getPath().replaceAll("/+$", "").split("/");
      try {
        if (uri.getPath().equals("/metrics")) {
          requireMethod(method, "GET");
          sendText(exchange, metrics());
          return;
        }
        JsonExchange.send(exchange, HttpURLConnection.HTTP_OK, route(exchange, method, path, uri));
      } catch (HttpError e) {
        JsonExchange.send(exchange, e.status(), e.reply());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        JsonExchange.send(
            exchange,
            HttpURLConnection.HTTP_UNAVAILABLE,
            new ErrorReply(UNAVAILABLE, "the node is shutting down"));
      } catch (RuntimeException e) {
        LOG.error("admin API failed on {} {}", method, uri, e);
        JsonExchange.send(
            exchange,
            HttpURLConnection.HTTP_INTERNAL_ERROR,
            new ErrorReply(HttpErrors.INTERNAL, "internal error: " + e));
      }
    }
  }

  private Object route(HttpExchange exchange, String method, String[] p, URI uri)
      throws HttpError, IOException, InterruptedException {
    // p[0] is "" (the path starts with '/'), p[1] "api"
    if (p.length >= 3 && p[1].equals("api")) {
      switch (p[2]) {
        case "cluster" -> {
          if (p.length == 3) {
            requireMethod(method, "GET");
            return cluster();
          }
        }
        case "metadata" -> {
          if (p.length == 3) {
            requireMethod(method, "GET");
            return metadataView();
          }
        }
        case "procedures" -> {
          if (p.length == 3) {
            if (method.equals("POST")) {
              return submit(exchange);
            }
            requireMethod(method, "GET");
            return list(query(uri));
          }
          long id = procId(p[3]);
          if (p.length == 4) {
            requireMethod(method, "GET");
            return get(id);
          }
          if (p.length == 5 && p[4].equals("abort")) {
            requireMethod(method, "POST");
            get(id); // an unknown id is a 404, like GET; a known one answers aborted true|false
            return Map.of("aborted", await(node.abort(id)));
          }
        }
        default -> {}
      }
    }
    throw new HttpError(
        HttpURLConnection.HTTP_NOT_FOUND, HttpErrors.NOT_FOUND, "no such path: " + uri.getPath());
  }

  private Map<String, Object> cluster() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("nodeId", node.nodeId());
    out.put("role", node.role());
    out.put("leaderId", node.leaderId().orElse(null));
    out.put("term", node.term());
    out.put("peers", new ArrayList<>(node.peers().keySet()));
    Map<String, Object> executor = new LinkedHashMap<>();
    Optional<ProcedureExecutor<ConfigNodeEnv>> e = node.executor();
    executor.put("state", e.isPresent() ? "RUNNING" : node.role().name());
    executor.put("live", e.map(ProcedureExecutor::liveCount).orElse(0));
    executor.put("workers", e.map(ProcedureExecutor::workerCount).orElse(0));
    executor.put("recovering", node.role() == dev.baton.consensus.NodeRole.LEADER_RECOVERING);
    node.lastRecovery()
        .ifPresent(
            r -> {
              executor.put("lastRecoveryTerm", r.term());
              executor.put("lastRecoveryProcedures", r.procedures());
              executor.put("lastRecoveryMillis", r.rebuildTime().toMillis());
              executor.put("lastRecoveryRunningAt", r.runningAtMillis());
            });
    out.put("executor", executor);
    out.put("rejectedStaleWrites", node.rejectedWriteCount());
    return out;
  }

  private Map<String, Object> metadataView() throws InterruptedException, HttpError {
    ClusterMetadata.View view = new ClusterMetadata.View(await(node.metadata().read("")));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("databases", view.databases());
    out.put("regions", view.regions());
    out.put("dataNodes", view.dataNodes());
    return out;
  }

  private Map<String, Object> submit(HttpExchange exchange)
      throws HttpError, IOException, InterruptedException {
    SubmitRequest req =
        JsonExchange.parse(JsonExchange.readBody(exchange, MAX_BODY_BYTES), SubmitRequest.class);
    if (req.type() == null) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST,
          HttpErrors.INVALID_REQUEST,
          "missing required field 'type'; known types: " + ConfigNodeProcedures.registry().types());
    }
    Procedure<ConfigNodeEnv> proc;
    try {
      proc = ConfigNodeProcedures.create(req.type(), req.args());
    } catch (IllegalArgumentException e) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST, e.getMessage());
    }
    NonceKey nonce =
        req.nonce() == null ? null : new NonceKey(req.nonce().group(), req.nonce().nonce());
    long id = await(node.submit(proc, nonce));
    return Map.of("procId", id);
  }

  private List<ProcedureView> list(Map<String, String> query)
      throws HttpError, InterruptedException {
    ProcedureState state = null;
    if (query.containsKey("state")) {
      try {
        state = ProcedureState.valueOf(query.get("state"));
      } catch (IllegalArgumentException e) {
        throw new HttpError(
            HttpURLConnection.HTTP_BAD_REQUEST,
            HttpErrors.INVALID_REQUEST,
            "unknown state '"
                + query.get("state")
                + "'; states: "
                + List.of(ProcedureState.values()));
      }
    }
    String type = query.get("type");
    List<ProcedureView> out = new ArrayList<>();
    for (ProcedureInfo i : await(node.list())) {
      if ((state == null || i.state() == state) && (type == null || type.equals(i.type()))) {
        out.add(ProcedureView.of(i));
      }
    }
    return out;
  }

  private ProcedureView get(long id) throws HttpError, InterruptedException {
    Optional<ProcedureInfo> info = await(node.getInfo(id));
    return ProcedureView.of(
        info.orElseThrow(
            () ->
                new HttpError(
                    HttpURLConnection.HTTP_NOT_FOUND, HttpErrors.NOT_FOUND, "no procedure " + id)));
  }

  private String metrics() {
    StringBuilder out = new StringBuilder();
    gauge(out, "baton_leader", "1 if this node leads", node.isLeader() ? 1 : 0);
    gauge(out, "baton_term", "current Raft term", node.term());
    gauge(
        out,
        "baton_executor_running",
        "1 if this node runs the executor",
        node.executor().isPresent() ? 1 : 0);
    gauge(
        out,
        "baton_live_procedures",
        "live procedures in the executor",
        node.executor().map(ProcedureExecutor::liveCount).orElse(0));
    counter(
        out,
        "baton_applied_store_batches_total",
        "store batches applied by this node",
        node.stateMachine().appliedBatchCount());
    counter(
        out,
        "baton_applied_write_entries_total",
        "log entries that carried store batches",
        node.stateMachine().appliedWriteEntryCount());
    gauge(
        out,
        "baton_applied_index",
        "index of the last Raft log entry applied by this node",
        node.stateMachine().appliedIndex());
    counter(
        out,
        "baton_rejected_stale_writes_total",
        "writes rejected for a stale term",
        node.rejectedWriteCount());
    return out.toString();
  }

  private static void gauge(StringBuilder out, String name, String help, long value) {
    sample(out, name, help, "gauge", value);
  }

  /** A value that only grows; Prometheus names these {@code *_total}. */
  private static void counter(StringBuilder out, String name, String help, long value) {
    sample(out, name, help, "counter", value);
  }

  private static void sample(StringBuilder out, String name, String help, String type, long value) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    out.append(name).append(' ').append(value).append('\n');
  }

  private static void sendText(HttpExchange exchange, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
    exchange.sendResponseHeaders(HttpURLConnection.HTTP_OK, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static void requireMethod(String method, String allowed) throws HttpError {
    if (!method.equals(allowed)) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_METHOD,
          HttpErrors.METHOD_NOT_ALLOWED,
          "method " + method + " not allowed here; use " + allowed);
    }
  }

  private static long procId(String s) throws HttpError {
    try {
      long id = Long.parseLong(s);
      if (id > 0) {
        return id;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new HttpError(
        HttpURLConnection.HTTP_BAD_REQUEST,
        HttpErrors.INVALID_REQUEST,
        "procedure id must be a positive integer, got '" + s + "'");
  }

  private static Map<String, String> query(URI uri) {
    Map<String, String> out = new LinkedHashMap<>();
    String q = uri.getQuery();
    if (q == null || q.isEmpty()) {
      return out;
    }
    for (String pair : q.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        out.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
    }
    return out;
  }

  /** Waits for the cluster; a timeout or a failure becomes a 503 with the reason. */
  private static <T> T await(java.util.concurrent.CompletableFuture<T> f)
      throws HttpError, InterruptedException {
    try {
      return f.get(CLUSTER_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new HttpError(
          HttpURLConnection.HTTP_UNAVAILABLE,
          UNAVAILABLE,
          "the cluster did not answer within " + CLUSTER_WAIT + " (no leader or no majority)");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IllegalArgumentException bad) {
        throw new HttpError(
            HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST, bad.getMessage());
      }
      // a timeout of the cluster client carries no message; name it rather than say "null"
      String why =
          cause.getMessage() != null
              ? cause.getMessage()
              : cause instanceof TimeoutException
                  ? "no answer in time (no leader or no majority)"
                  : cause.getClass().getSimpleName();
      throw new HttpError(
          HttpURLConnection.HTTP_UNAVAILABLE,
          UNAVAILABLE,
          "the cluster could not serve the request: " + why);
    }
  }
}
