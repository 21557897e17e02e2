package dev.baton.confignode.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.faults.StateHolds;
import dev.baton.confignode.http.HttpError;
import dev.baton.confignode.http.HttpErrors;
import dev.baton.confignode.http.JsonExchange;
import dev.baton.confignode.http.Paging;
import dev.baton.confignode.procedures.ConfigNodeEnv;
import dev.baton.confignode.procedures.ConfigNodeProcedures;
import dev.baton.confignode.procedures.ProcedureLimits;
import dev.baton.confignode.waits.ConfigNodeWaits;
import dev.baton.consensus.ProcedureNode;
import dev.baton.procedure.BlockedOn;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.WaitChain;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code /api/procedures}: submit (any node: the submission is a log entry; the answer comes once
 * it is committed, not once the procedure ran), list with filters, get one (or wait for it to
 * finish: {@code ?waitFor=finished&timeout=10s}), and why one waits ({@link ActionRoutes} serves
 * the abort). Reads are linearizable; the leader adds what each live procedure waits on ({@code
 * blockedOn}) and its text ({@code waitReason}); a node without a running executor while no
 * executor runs anywhere (no leader, or it leads and still recovers) says so as {@code notLeader}.
 *
 * <p>{@code GET /api/procedures/{id}/why} follows the waits from the procedure to the root cause
 * ({@link WaitChain}: lock holder, what that holder waits on, ...), each link typed, stopping at a
 * cycle. Waits live in the leader's executor, so a follower answers with the leader's view ({@link
 * LeaderForward}).
 */
final class ProcedureRoutes implements AdminRoutes {
  /** Largest request body accepted. */
  static final int MAX_BODY_BYTES = 64 << 10;

  static final String PATH = "procedures";

  /** The query parameter of a long poll: {@code waitFor=finished}. */
  static final String WAIT_FOR = "waitFor";

  /** The one event a long poll waits for. */
  static final String FINISHED = "finished";

  /** How long a long poll waits: {@code 10s}, {@code 500ms}, or whole seconds. */
  static final String TIMEOUT = "timeout";

  /**
   * Long polls one node keeps waiting at once; more are answered 503 at once. Each holds a
   * connection and a few objects, no thread.
   */
  static final int MAX_WAITING = 1024;

  /**
   * Submissions one node keeps waiting for their commit at once; more are answered 503 at once.
   * Like a long poll, each holds a connection and a few objects, no thread, so they are bounded
   * here rather than by the server's handler slots: counted there, a few hundred clients submitting
   * while the log was slow filled the slots and the waiting line, and the 503s sent them to the
   * other nodes, which forwarded, and loaded the cluster further.
   */
  static final int MAX_SUBMITTING = 1024;

  private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s)?");

  /** A submission: a registered type, its arguments, and an optional nonce for safe retries. */
  record SubmitRequest(String type, JsonNode args, NonceBody nonce) {}

  record NonceBody(long group, long nonce) {}

  static final String WHY = "why";

  private final ProcedureNode<ConfigNodeEnv> node;
  private final StateHolds holds;
  private final ProcedureLimits limits;
  private final AtomicInteger waiting = new AtomicInteger();
  private final AtomicInteger submitting = new AtomicInteger();
  private final LeaderForward leader;

  ProcedureRoutes(
      ProcedureNode<ConfigNodeEnv> node,
      StateHolds holds,
      ProcedureLimits limits,
      LeaderForward leader) {
    this.node = node;
    this.holds = holds;
    this.limits = limits;
    this.leader = leader;
  }

  @Override
  public List<Endpoint> endpoints() {
    return List.of(
        Endpoint.post(
                "/api/" + PATH,
                "submit a procedure {type, args?, nonce?: {group, nonce}} → {procId}, answered once"
                    + " the submission is committed; with waitFor=finished, → the procedure, answered"
                    + " once it finished or the timeout passed (finished: false)",
                this::submit)
            .withQuery(
                WAIT_FOR + ": " + FINISHED + " to wait until the procedure finished",
                TIMEOUT
                    + ": how long to wait once submitted (10s, 500ms; default and bounds in the"
                    + " reply's error when out of range)"),
        Endpoint.get(
                "/api/" + PATH,
                "one page of the procedures that match the filters, in id order",
                this::list)
            .withQuery(
                "limit: page size, 1 to " + Paging.MAX_PAGE,
                "after: only ids above this one (the previous page's "
                    + Paging.NEXT_AFTER_HEADER
                    + " header)",
                "state: only procedures in this state",
                "notState: only procedures not in this state (SUCCESS hides the succeeded)",
                "type: only procedures of this type",
                "parent: only the children of this procedure"),
        Endpoint.get(
                "/api/" + PATH + "/{id}",
                "one procedure, with what it waits on (blockedOn, waitReason) while it waits; with waitFor=finished, answered"
                    + " once it finished or the timeout passed (finished: false)",
                this::getOrAwait)
            .withQuery(
                WAIT_FOR + ": " + FINISHED + " to wait until the procedure finished",
                TIMEOUT
                    + ": how long to wait (10s, 500ms; default and bounds in the reply's"
                    + " error when out of range)"),
        Endpoint.get(
            "/api/" + PATH + "/{id}/" + WHY,
            "the chain of waits from a procedure to its root cause (the leader's view), each link"
                + " typed, stopping at a cycle",
            req -> why(req, procId(req.segment(1)))));
  }

  private Object getOrAwait(AdminRequest req) throws HttpError {
    long id = procId(req.segment(1));
    Optional<Duration> wait = waitOf(req.query());
    return wait.isPresent() ? awaitFinished(id, wait.get()) : read(id);
  }

  /**
   * One procedure, answered by whichever thread completes the node's read: on the leader the
   * request's own thread (its read is answered at once), on a follower the thread that received the
   * leader's read index, which then also writes the answer (a view of one procedure is cheap to
   * build), where a hand-off would wake one more thread per read.
   */
  private InlineAnswer read(long id) {
    return new InlineAnswer(
        ClusterCalls.later(node.getInfo(id), ConfigNodeWaits.ADMIN_CLUSTER_CALL)
            .thenApply(
                info -> view(info.orElseThrow(() -> new CompletionException(notFound(id))))));
  }

  /**
   * Answers once the submission is committed ({@code procId}), holding no thread meanwhile:
   * submissions that wait for the same group commit cost the server nothing but their connections.
   * With {@code waitFor=finished} the answer is the procedure once it finished, or as it is when
   * {@code timeout} has passed, as a long poll on its id answers: one request where a client would
   * otherwise send two (the submission, then the long poll).
   */
  private CompletableFuture<?> submit(AdminRequest req) throws HttpError, IOException {
    Optional<Duration> wait = waitOf(req.query());
    CompletableFuture<Long> submitted = submitted(req);
    if (wait.isEmpty()) {
      return submitted.thenApply(id -> Map.of("procId", id));
    }
    return submitted.thenCompose(id -> awaitSubmitted(id, wait.get()));
  }

  /**
   * The long poll of a submission just committed. When this node holds as many waiting requests as
   * it may, the 503 names the procedure, which exists: the client waits for it by its id (or
   * submits again with its nonce, which answers the same id).
   */
  private CompletableFuture<ProcedureView> awaitSubmitted(long id, Duration timeout) {
    try {
      return awaitFinished(id, timeout);
    } catch (HttpError e) {
      throw new CompletionException(
          new HttpError(
              e.status(),
              e.reply().error(),
              "procedure " + id + " was submitted, but " + e.getMessage()));
    }
  }

  /** The id of the submission in {@code req}'s body, once it is committed. */
  private CompletableFuture<Long> submitted(AdminRequest req) throws HttpError, IOException {
    SubmitRequest body = JsonExchange.parse(req.body(MAX_BODY_BYTES), SubmitRequest.class);
    if (body.type() == null) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST,
          HttpErrors.INVALID_REQUEST,
          "missing required field 'type'; known types: " + ConfigNodeProcedures.registry().types());
    }
    req.target(body.type());
    Procedure<ConfigNodeEnv> proc;
    try {
      proc = ConfigNodeProcedures.create(body.type(), body.args(), limits);
    } catch (IllegalArgumentException e) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST, e.getMessage());
    }
    NonceKey nonce =
        body.nonce() == null ? null : new NonceKey(body.nonce().group(), body.nonce().nonce());
    if (nonce != null && nonce.group() == ConfigNodeProcedures.NODE_NONCE_GROUP) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST,
          HttpErrors.INVALID_REQUEST,
          "nonce group "
              + ConfigNodeProcedures.NODE_NONCE_GROUP
              + " is reserved for the node's own submissions; use another group");
    }
    return counted(
            submitting,
            MAX_SUBMITTING,
            "submissions in flight",
            () -> node.submit(proc, nonce),
            ConfigNodeWaits.ADMIN_CLUSTER_CALL)
        .thenApply(
            id -> {
              req.target("procedure " + id + " " + body.type());
              return id;
            });
  }

  /**
   * One page of the procedures that match the filters, in id order: at most {@code limit} (default
   * {@value Paging#DEFAULT_PAGE}, at most {@value Paging#MAX_PAGE}) with ids above {@code after}
   * (default 0). When more match, the reply's {@value Paging#NEXT_AFTER_HEADER} header holds the
   * {@code after} of the next page.
   */
  private List<ProcedureView> list(AdminRequest req) throws HttpError, InterruptedException {
    Map<String, String> query = req.query();
    int limit = (int) QueryParams.number(query, "limit", Paging.DEFAULT_PAGE, 1, Paging.MAX_PAGE);
    long after = QueryParams.number(query, "after", 0, 0, Long.MAX_VALUE);
    ProcedureState state = stateParameter(query, "state");
    ProcedureState notState = stateParameter(query, "notState");
    long parent = query.containsKey("parent") ? procId(query.get("parent")) : 0;
    String type = query.get("type");
    List<ProcedureInfo> page =
        ClusterCalls.await(node.page(after, limit, type, parent, state, notState));
    List<ProcedureView> out = new ArrayList<>();
    for (ProcedureInfo i : page) {
      if (out.size() == limit) {
        req.setResponseHeader(
            Paging.NEXT_AFTER_HEADER, Long.toString(out.get(out.size() - 1).procId()));
        break;
      }
      out.add(view(i));
    }
    return out;
  }

  /** A procedure state named by query parameter {@code name}, or null if not given. */
  private static ProcedureState stateParameter(Map<String, String> query, String name)
      throws HttpError {
    String value = query.get(name);
    if (value == null) {
      return null;
    }
    try {
      return ProcedureState.valueOf(value);
    } catch (IllegalArgumentException e) {
      throw new HttpError(
          HttpURLConnection.HTTP_BAD_REQUEST,
          HttpErrors.INVALID_REQUEST,
          "unknown " + name + " '" + value + "'; states: " + List.of(ProcedureState.values()));
    }
  }

  /**
   * The wait a {@code GET /api/procedures/ID} asks for: empty without {@code waitFor}; with {@code
   * waitFor=finished}, its {@code timeout} (default {@link ConfigNodeWaits#PROCEDURE_WAIT_DEFAULT},
   * at most {@link ConfigNodeWaits#PROCEDURE_WAIT_MAX}).
   */
  static Optional<Duration> waitOf(Map<String, String> query) throws HttpError {
    String waitFor = query.get(WAIT_FOR);
    String timeout = query.get(TIMEOUT);
    if (waitFor == null) {
      if (timeout != null) {
        throw badRequest("'" + TIMEOUT + "' needs '" + WAIT_FOR + "=" + FINISHED + "'");
      }
      return Optional.empty();
    }
    if (!waitFor.equals(FINISHED)) {
      throw badRequest("'" + WAIT_FOR + "' must be '" + FINISHED + "', got '" + waitFor + "'");
    }
    if (timeout == null) {
      return Optional.of(ConfigNodeWaits.PROCEDURE_WAIT_DEFAULT);
    }
    Matcher m = DURATION.matcher(timeout);
    Duration d = null;
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      d = "ms".equals(m.group(2)) ? Duration.ofMillis(n) : Duration.ofSeconds(n);
    }
    if (d == null || d.compareTo(ConfigNodeWaits.PROCEDURE_WAIT_MAX) > 0) {
      throw badRequest(
          "'"
              + TIMEOUT
              + "' must be a duration such as 10s or 500ms, at most "
              + ConfigNodeWaits.PROCEDURE_WAIT_MAX.toSeconds()
              + "s, got '"
              + timeout
              + "'");
    }
    return Optional.of(d);
  }

  /**
   * The procedure once it finished, or as it is when {@code timeout} has passed ({@code finished}
   * false): the node waits without a thread (see {@link ProcedureNode#awaitFinished}), leader or
   * follower alike. An unknown id is a 404, as for a plain GET.
   */
  private CompletableFuture<ProcedureView> awaitFinished(long id, Duration timeout)
      throws HttpError {
    return counted(
            waiting,
            MAX_WAITING,
            "waiting requests",
            () -> node.awaitFinished(id, timeout),
            timeout.plus(ConfigNodeWaits.ADMIN_CLUSTER_CALL))
        .thenApply(info -> view(info.orElseThrow(() -> new CompletionException(notFound(id)))));
  }

  /**
   * What {@code start} waits for, within {@code patience}, counted in {@code count} while it waits;
   * a 503 at once if {@code max} are waiting already (each holds a connection, no thread).
   */
  private static <T> CompletableFuture<T> counted(
      AtomicInteger count,
      int max,
      String what,
      Supplier<CompletableFuture<T>> start,
      Duration patience)
      throws HttpError {
    if (count.incrementAndGet() > max) {
      count.decrementAndGet();
      throw ClusterCalls.unavailable(
          "this node already holds " + max + " " + what + "; try again later");
    }
    CompletableFuture<T> started;
    try {
      started = start.get();
    } catch (RuntimeException e) {
      count.decrementAndGet();
      throw e;
    }
    return ClusterCalls.later(started, patience)
        .whenComplete((r, failure) -> count.decrementAndGet());
  }

  private static HttpError notFound(long id) {
    return new HttpError(
        HttpURLConnection.HTTP_NOT_FOUND, HttpErrors.NOT_FOUND, "no procedure " + id);
  }

  private static HttpError badRequest(String message) {
    return new HttpError(HttpURLConnection.HTTP_BAD_REQUEST, HttpErrors.INVALID_REQUEST, message);
  }

  private ProcedureView get(long id) throws HttpError, InterruptedException {
    Optional<ProcedureInfo> info = ClusterCalls.await(node.getInfo(id));
    return view(info.orElseThrow(() -> notFound(id)));
  }

  /**
   * The view, with what it waits on when this node's executor knows it (and the fault hold it waits
   * at on this node as its wait reason), or {@code notLeader} when no executor runs.
   */
  private ProcedureView view(ProcedureInfo i) {
    if (i.finished()) {
      return ProcedureView.of(i, null, null);
    }
    Optional<ProcedureExecutor<ConfigNodeEnv>> executor = node.executor();
    if (executor.isEmpty()) {
      return ProcedureView.of(i, null, noExecutor().orElse(null));
    }
    String reason =
        holds
            .heldAt(i.procId())
            .map(FaultRoutes::describe)
            .or(() -> executor.get().waitReason(i.procId()))
            .orElse(null);
    return ProcedureView.of(i, reason, executor.get().blockedOn(i.procId()).orElse(null));
  }

  /**
   * Why no executor runs procedures, when it runs nowhere: no leader, or this node leads and its
   * executor is still recovering. Empty on a follower of a leader (the leader knows the waits).
   */
  private Optional<BlockedOn> noExecutor() {
    String leaderId = node.leaderId().orElse(null);
    if (leaderId == null) {
      return Optional.of(new BlockedOn.NotLeader(node.nodeId(), null, "no leader now"));
    }
    if (leaderId.equals(node.nodeId())) {
      return Optional.of(
          new BlockedOn.NotLeader(
              node.nodeId(),
              leaderId,
              "it leads term " + node.term() + " and its executor is still recovering"));
    }
    return Optional.empty();
  }

  /** The chain of waits of procedure {@code id}, from the leader's executor. */
  private Object why(AdminRequest req, long id) throws HttpError, InterruptedException {
    req.target("procedure " + id);
    Optional<ProcedureExecutor<ConfigNodeEnv>> executor = node.executor();
    if (executor.isPresent()) {
      Optional<WaitChain> chain = executor.get().why(id);
      if (chain.isPresent()) {
        return WaitJson.chain(chain.get(), node.nodeId(), node.term());
      }
      ProcedureView known = get(id); // an unknown id is a 404
      String what = "procedure " + id + " is not live in the executor of the leader";
      WaitChain.Link only =
          new WaitChain.Link(id, known.type(), known.state(), known.step(), null, what);
      return WaitJson.chain(
          new WaitChain(id, List.of(only), false, what), node.nodeId(), node.term());
    }
    Optional<BlockedOn> none = noExecutor();
    if (none.isPresent()) {
      String what = none.get().describe(System.currentTimeMillis());
      WaitChain.Link only = new WaitChain.Link(id, null, null, null, none.get(), what);
      return WaitJson.chain(
          new WaitChain(id, List.of(only), false, what), node.nodeId(), node.term());
    }
    return leader.get(req, "/api/" + PATH + "/" + id + "/" + WHY, "why a procedure waits");
  }

  static long procId(String s) throws HttpError {
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
}
