package dev.baton.confignode.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.datanode.DataNodeState;
import dev.baton.confignode.datanode.LedgerEntry;
import dev.baton.confignode.history.FinalState;
import dev.baton.confignode.history.History;
import dev.baton.confignode.history.Operation;
import dev.baton.confignode.history.OperationKind;
import dev.baton.confignode.history.ProcedureSeen;
import dev.baton.confignode.history.Reply;
import dev.baton.confignode.history.Request;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Records client operations for the history checker ({@link dev.baton.confignode.history}): each
 * call made through it becomes an {@link Operation} with its client (the calling thread's name),
 * node, start and end on this process's monotonic clock, and outcome. A call that returns is ok;
 * one refused with a definite answer (a 4xx) failed; any other failure (no answer, a timeout, a
 * 5xx, an interruption) is unknown, so a submission may have been applied. The call's result or
 * failure is passed on unchanged. Thread-safe.
 */
public final class HistoryRecorder {
  /** The node of a call made through a client that tries every node in turn. */
  public static final String ANY_NODE = "any";

  /** What the node calls a missing procedure. */
  static final int NOT_FOUND = HttpURLConnection.HTTP_NOT_FOUND;

  /** A procedure type that names a database in its {@code name} argument. */
  private static final Set<String> DATABASE_TYPES =
      Set.of(Request.CREATE_DATABASE, Request.DELETE_DATABASE);

  private final long origin = System.nanoTime();
  private final List<Operation> operations = new ArrayList<>();

  /**
   * A submission with a nonce; {@code call} returns the procedure id.
   *
   * @param node the node it goes to ({@code any} if the client tries nodes in turn)
   */
  public long submit(
      String node, long nonce, String type, JsonNode args, NodeApiClient.Call<Long> call)
      throws IOException, InterruptedException {
    String database =
        DATABASE_TYPES.contains(type) && args != null && args.has("name")
            ? args.get("name").asText()
            : null;
    return record(node, Request.submit(nonce, type, database), call, Reply::submitted);
  }

  /** A read of one procedure; {@code call} returns its view or fails with a 404. */
  public JsonNode readProcedure(String node, long procId, NodeApiClient.Call<JsonNode> call)
      throws IOException, InterruptedException {
    return record(
        node, Request.readProcedure(procId), call, p -> Reply.found(HistoryRecorder.seen(p)));
  }

  /** A read of every procedure; {@code call} returns the list. */
  public ArrayNode readList(String node, NodeApiClient.Call<ArrayNode> call)
      throws IOException, InterruptedException {
    return record(node, Request.readList(), call, all -> Reply.procedures(seen(all)));
  }

  /** A read of the metadata; {@code call} returns {@code GET /api/metadata}. */
  public JsonNode readMetadata(String node, NodeApiClient.Call<JsonNode> call)
      throws IOException, InterruptedException {
    return record(node, Request.readMetadata(), call, m -> Reply.databases(databases(m)));
  }

  private <T> T record(
      String node, Request request, NodeApiClient.Call<T> call, Function<T, Reply> reply)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    try {
      T result = call.call();
      add(node, request, start, reply.apply(result));
      return result;
    } catch (NodeApiClient.ApiException e) {
      Reply r;
      if (request.kind() == OperationKind.READ_PROCEDURE && e.status() == NOT_FOUND) {
        r = Reply.notFound();
      } else {
        r = e.retryable() ? Reply.unknown(e.getMessage()) : Reply.failed(e.getMessage());
      }
      add(node, request, start, r);
      throw e;
    } catch (IOException | InterruptedException | RuntimeException e) {
      add(node, request, start, Reply.unknown(e.toString()));
      throw e;
    }
  }

  private synchronized void add(String node, Request request, long start, Reply reply) {
    operations.add(
        new Operation(
            operations.size() + 1,
            Thread.currentThread().getName(),
            node,
            start - origin,
            System.nanoTime() - origin,
            request,
            reply));
  }

  /** The operations recorded so far. */
  public synchronized List<Operation> operations() {
    return List.copyOf(operations);
  }

  /** The operations recorded so far with {@code end}, for the checker. */
  public History history(FinalState end) {
    return new History(operations(), end);
  }

  /**
   * Reads the state at the end, once the cluster is quiet: every procedure, the databases and the
   * DataNodes' ledgers.
   */
  public static FinalState finalState(NodeApiClient api, List<DataNodeClient> dataNodes)
      throws IOException, InterruptedException {
    List<ProcedureSeen> procedures = seen(api.listProcedures(""));
    Set<String> databases = databases(api.get("/api/metadata"));
    Map<Integer, List<LedgerEntry>> ledgers = new LinkedHashMap<>();
    for (DataNodeClient d : dataNodes) {
      DataNodeState s = d.state();
      ledgers.put(s.id(), s.ledger());
    }
    return new FinalState(
        procedures, databases, ledgers, Set.of(InvariantCheck.SELF_SUBMITTED_TYPE));
  }

  /** A procedure's JSON view ({@code GET /api/procedures/{id}}) as the checker sees it. */
  static ProcedureSeen seen(JsonNode p) {
    return new ProcedureSeen(
        p.get("procId").asLong(),
        p.get("parentProcId").asLong() < 0,
        p.get("type").asText(),
        p.get("state").asText(),
        p.get("finished").asBoolean());
  }

  private static List<ProcedureSeen> seen(ArrayNode all) {
    List<ProcedureSeen> out = new ArrayList<>();
    all.forEach(p -> out.add(seen(p)));
    return out;
  }

  private static Set<String> databases(JsonNode metadata) {
    Set<String> names = new HashSet<>();
    metadata.get("databases").forEach(d -> names.add(d.get("name").asText()));
    return names;
  }
}
