package dev.baton.consensus;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.baton.consensus.proto.Abort;
import dev.baton.consensus.proto.AbortPending;
import dev.baton.consensus.proto.AuditRecord;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.MetadataEntry;
import dev.baton.consensus.proto.OperatorActionEntry;
import dev.baton.consensus.proto.Query;
import dev.baton.consensus.proto.QueryReply;
import dev.baton.consensus.proto.StoredProcedure;
import dev.baton.consensus.proto.Submit;
import dev.baton.consensus.proto.SubmitResult;
import dev.baton.consensus.tls.TlsSettings;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureRegistry;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.client.retry.RequestTypeDependentRetryPolicy;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.TimeDuration;

/**
 * Talks to a procedure cluster from outside (another process) or from a member on behalf of its
 * callers: submissions and aborts go to the leader through the Raft log, reads are linearizable
 * (read index) and may be answered by any member. Every call gives up after the request timeout
 * with a clear error (no leader, or no majority), never hangs.
 */
public final class ProcedureClient implements AutoCloseable {
  /** The read of every procedure. */
  static final Query LIST_QUERY = Query.newBuilder().setList(true).build();

  /**
   * Threads that make this client's calls into Ratis' client: one may wait for a broken connection
   * to close while the others go on.
   */
  static final int CALL_THREADS = 4;

  private final RaftClient raft;
  private final ProcedureCodec codec;
  private final Duration requestTimeout;
  private final WriteWindow writes;

  /**
   * Threads every call into Ratis' client is made on. Ratis closes a broken connection on the
   * thread that sends next, waiting for it to shut down (3 s when the peer is unreachable): made on
   * the caller's thread, that wait would come before the call's own timeout even starts (a member
   * cut off from the leader answered a submission after twice its request timeout).
   */
  private final ExecutorService calls =
      Executors.newFixedThreadPool(CALL_THREADS, LeadershipManager.daemon("baton-client-call"));

  ProcedureClient(
      RaftGroup group, ProcedureRegistry registry, RaftSettings settings, RaftSecurity security) {
    this(group, registry, settings, security, WriteWindow.DEFAULT_SIZE);
  }

  ProcedureClient(
      RaftGroup group,
      ProcedureRegistry registry,
      RaftSettings settings,
      RaftSecurity security,
      int writeWindow) {
    this.codec = new ProcedureCodec(registry);
    this.requestTimeout = settings.requestTimeout();
    this.writes = new WriteWindow(writeWindow);
    RaftProperties properties = settings.clientProperties();
    RaftClientConfigKeys.Async.setOutstandingRequestsMax(properties, writeWindow);
    this.raft =
        RaftClient.newBuilder()
            .setRaftGroup(group)
            .setProperties(properties)
            .setParameters(security.clientParameters())
            .setRetryPolicy(retryPolicy(requestTimeout))
            .build();
  }

  /**
   * Writes are retried until they succeed: they go through Ratis' ordered sliding window, which a
   * write that runs out of retries closes for good (every later write of this client would fail); a
   * {@link WriteWindow} keeps them from filling it. Reads are unordered and independent, so they
   * stop retrying after the request timeout: a read nobody waits for any more does not keep calling
   * a cluster without a majority. A call a member refused for this client's certificate is not
   * retried: it would be refused again.
   */
  private static RetryPolicy retryPolicy(Duration requestTimeout) {
    TimeDuration sleep =
        TimeDuration.valueOf(ConsensusWaits.CLIENT_RETRY_PAUSE.toMillis(), TimeUnit.MILLISECONDS);
    RetryPolicy byType =
        RequestTypeDependentRetryPolicy.newBuilder()
            .setRetryPolicy(
                RaftClientRequestProto.TypeCase.WRITE, RetryPolicies.retryForeverWithSleep(sleep))
            .setRetryPolicy(
                RaftClientRequestProto.TypeCase.READ, RetryPolicies.retryForeverWithSleep(sleep))
            .setTimeout(RaftClientRequestProto.TypeCase.READ, RaftSettings.millis(requestTimeout))
            .build();
    // a call the cluster refused for the caller's identity fails again whatever the retry
    return event ->
        RaftReplies.accessRefusal(event.getCause()) != null
            ? RetryPolicy.NO_RETRY_ACTION
            : byType.handleAttemptFailure(event);
  }

  /**
   * A client of the cluster made of {@code peers} (node id → Raft address), in plaintext, of the
   * cluster with the default id.
   */
  public static ProcedureClient connect(
      Map<String, InetSocketAddress> peers, ProcedureRegistry registry) {
    return builder().peers(peers).registry(registry).connect();
  }

  /** As {@link #connect(Map, ProcedureRegistry)}, with {@code settings}' request timeout. */
  public static ProcedureClient connect(
      Map<String, InetSocketAddress> peers, ProcedureRegistry registry, RaftSettings settings) {
    return builder().peers(peers).registry(registry).settings(settings).connect();
  }

  /**
   * A client of the cluster {@code clusterId} (as its members' {@link
   * ProcedureNode.Builder#clusterId}) made of {@code peers}, in plaintext.
   */
  public static ProcedureClient connect(
      String clusterId, Map<String, InetSocketAddress> peers, ProcedureRegistry registry) {
    return builder().clusterId(clusterId).peers(peers).registry(registry).connect();
  }

  /** A builder for a client with more settings: cluster id, request timeout, TLS. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link ProcedureClient}: peers and registry are required. */
  public static final class Builder {
    private String clusterId = ProcedureNode.DEFAULT_CLUSTER_ID;
    private Map<String, InetSocketAddress> peers;
    private ProcedureRegistry registry;
    private RaftSettings settings = RaftSettings.defaults();
    private TlsSettings tls;

    private Builder() {}

    /**
     * The cluster's id, as its members were given it; default {@value
     * ProcedureNode#DEFAULT_CLUSTER_ID}.
     */
    public Builder clusterId(String id) {
      this.clusterId = ProcedureGroup.checkClusterId(id);
      return this;
    }

    /** Every member's Raft address, by node id. */
    public Builder peers(Map<String, InetSocketAddress> peers) {
      this.peers = new LinkedHashMap<>(peers);
      return this;
    }

    /** The procedure types this client submits and reads. */
    public Builder registry(ProcedureRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /** Only the request timeout counts for a client; default {@link RaftSettings#defaults()}. */
    public Builder settings(RaftSettings settings) {
      this.settings = Objects.requireNonNull(settings, "settings");
      return this;
    }

    /**
     * Connects by mutual TLS with this certificate (a client one with a role, or a member's; see
     * {@link dev.baton.consensus.tls.PeerIdentity}); without it, in plaintext, which a cluster with
     * TLS refuses.
     */
    public Builder tls(TlsSettings tls) {
      this.tls = Objects.requireNonNull(tls, "tls");
      return this;
    }

    public ProcedureClient connect() {
      Objects.requireNonNull(peers, "peers");
      Objects.requireNonNull(registry, "registry");
      return new ProcedureClient(
          ProcedureGroup.of(clusterId, peers),
          registry,
          settings,
          RaftSecurity.of(tls, peers),
          WriteWindow.DEFAULT_SIZE);
    }
  }

  /** Submits a root procedure; a repeated nonce returns the first submission's id. */
  public long submit(Procedure<?> proc, NonceKey nonce) throws IOException {
    byte[] envelope = codec.encodeSubmission(proc, nonce, System.currentTimeMillis());
    if (envelope.length > ProcedureNode.MAX_SUBMISSION_BYTES) {
      throw new IllegalArgumentException(
          "procedure serializes to "
              + envelope.length
              + " bytes; the limit is "
              + ProcedureNode.MAX_SUBMISSION_BYTES);
    }
    // a fresh array: wrapped, not copied
    ByteString bytes = com.google.protobuf.UnsafeByteOperations.unsafeWrap(envelope);
    return procIdOf(get(submit(bytes), "submission"), proc.getType());
  }

  /** Asks the leader's executor to abort a procedure; false if unknown, finished or refused. */
  public boolean abort(long procId) throws IOException {
    return get(abortAsync(send(abortCommand(procId)), procId), "abort of procedure " + procId);
  }

  static Command abortCommand(long procId) {
    return Command.newBuilder().setAbort(Abort.newBuilder().setProcId(procId)).build();
  }

  /**
   * The decision on an abort whose entry was {@code sent}: read, once the executor made it, from
   * the node that applied the entry as leader (an abort entry's apply does not wait for it).
   */
  CompletableFuture<Boolean> abortAsync(CompletableFuture<CommandReply> sent, long procId) {
    return sent.thenCompose(
        reply -> {
          if (reply.getKindCase() != CommandReply.KindCase.ABORT_PENDING) {
            throw new CompletionException(
                new IOException(
                    "abort of procedure " + procId + " refused: " + reply.getRejected()));
          }
          AbortPending pending = reply.getAbortPending();
          Query outcome = Query.newBuilder().setAbortOutcome(pending.getIndex()).build();
          return query(outcome, RaftPeerId.valueOf(pending.getNode()), true)
              .thenApply(r -> AbortOutcomes.decision(r, procId));
        });
  }

  /**
   * The outcome of an operator action whose entry was {@code sent}: read, once the executor carried
   * it out, from the node that applied the entry as leader.
   */
  CompletableFuture<AuditEntry> actionAsync(
      CompletableFuture<CommandReply> sent, OperatorActionEntry action) {
    String what = action.getAction() + " of procedure " + action.getProcId();
    return sent.thenCompose(
        reply -> {
          if (reply.getKindCase() != CommandReply.KindCase.ABORT_PENDING) {
            throw new CompletionException(
                new IllegalArgumentException(what + " refused: " + reply.getRejected()));
          }
          AbortPending pending = reply.getAbortPending();
          Query outcome = Query.newBuilder().setActionOutcome(pending.getIndex()).build();
          return query(outcome, RaftPeerId.valueOf(pending.getNode()), true)
              .thenApply(
                  r -> {
                    if (!r.hasActionResult()) {
                      throw new CompletionException(
                          new IOException(
                              what
                                  + " was recorded, but its outcome is not known: "
                                  + r.getUnknown()));
                    }
                    return AuditEntry.of(
                        AuditRecord.newBuilder()
                            .setIndex(pending.getIndex())
                            .setAction(action)
                            .setDecided(true)
                            .setRefused(r.getActionResult().getRefused())
                            .setOutcome(r.getActionResult().getOutcome())
                            .build());
                  });
        });
  }

  public Optional<ProcedureInfo> getInfo(long procId) throws IOException {
    return get(getInfoAsync(procId, null), "read of procedure " + procId);
  }

  public List<ProcedureInfo> list() throws IOException {
    return get(listAsync(null), "list");
  }

  /** Waits until the procedure finished, reading it again with a growing pause. */
  public ProcedureInfo await(long procId, Duration timeout) throws IOException, TimeoutException {
    try {
      return FinishWait.await(procId, timeout, () -> getInfo(procId));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while awaiting procedure " + procId);
    }
  }

  @Override
  public void close() {
    calls.shutdown();
    try {
      raft.close();
    } catch (IOException e) {
      // closing a client loses nothing
    }
  }

  /** {@code call} into Ratis' client, made on one of {@link #calls}; its future at once. */
  private <T> CompletableFuture<T> offCaller(Supplier<CompletableFuture<T>> call) {
    try {
      return CompletableFuture.supplyAsync(call, calls).thenCompose(f -> f);
    } catch (RejectedExecutionException closed) {
      return CompletableFuture.failedFuture(new IOException("the client is closed", closed));
    }
  }

  /** Submits one envelope through the leader. */
  CompletableFuture<SubmitResult> submit(ByteString envelope) {
    Command command =
        Command.newBuilder().setSubmit(Submit.newBuilder().addEnvelopes(envelope)).build();
    return send(command).thenApply(reply -> submitResults(reply).get(0));
  }

  /** The per-submission results of a submit entry's reply. */
  static List<SubmitResult> submitResults(CommandReply reply) {
    if (reply.getKindCase() != CommandReply.KindCase.SUBMITTED) {
      throw new CompletionException(new IOException("submission refused: " + reply.getRejected()));
    }
    return reply.getSubmitted().getResultsList();
  }

  /** Appends a command through the leader. */
  CompletableFuture<CommandReply> send(Command command) {
    return writes
        .send(() -> offCaller(() -> raft.async().send(RaftReplies.message(command))))
        .thenApply(RaftReplies::commandReply)
        .orTimeout(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A linearizable read; answered by {@code server}, or by the leader if null. */
  CompletableFuture<Optional<ProcedureInfo>> getInfoAsync(long procId, RaftPeerId server) {
    return query(getQuery(procId), server).thenApply(this::infoOf);
  }

  CompletableFuture<List<ProcedureInfo>> listAsync(RaftPeerId server) {
    return query(LIST_QUERY, server).thenApply(this::listOf);
  }

  static Query getQuery(long procId) {
    return Query.newBuilder().setGet(procId).build();
  }

  /** The procedure a reply to {@link #getQuery} holds, if any. */
  Optional<ProcedureInfo> infoOf(QueryReply reply) {
    return reply.getProceduresCount() == 0
        ? Optional.empty()
        : Optional.of(describe(reply.getProcedures(0)));
  }

  /** The procedures a reply to {@link #LIST_QUERY} holds. */
  List<ProcedureInfo> listOf(QueryReply reply) {
    List<ProcedureInfo> out = new ArrayList<>(reply.getProceduresCount());
    for (StoredProcedure p : reply.getProceduresList()) {
      out.add(describe(p));
    }
    return out;
  }

  /** A linearizable read answered by the leader, tried again while no leader can answer. */
  CompletableFuture<QueryReply> queryLeader(Query query) {
    return query(query, null, false);
  }

  /**
   * Appends an entry that changes nothing (a submission of no procedures) through the leader and
   * returns once it is committed and applied on the leader: what one synchronous Raft commit costs
   * through this client, the baseline a benchmark compares procedures with.
   */
  public void commitEmpty() throws IOException {
    Command empty = Command.newBuilder().setSubmit(Submit.getDefaultInstance()).build();
    get(send(empty).thenApply(ProcedureClient::submitResults), "empty commit");
  }

  /** A linearizable read of metadata under {@code prefix}; by {@code server}, or the leader. */
  CompletableFuture<SortedMap<String, byte[]>> metadataAsync(String prefix, RaftPeerId server) {
    return query(Query.newBuilder().setMetadataPrefix(prefix).build(), server)
        .thenApply(
            reply -> {
              SortedMap<String, byte[]> out = new TreeMap<>();
              for (MetadataEntry e : reply.getMetadataList()) {
                out.put(e.getKey(), e.getValue().toByteArray());
              }
              return out;
            });
  }

  /** Metadata under {@code prefix}, read through the leader. */
  public SortedMap<String, byte[]> metadata(String prefix) throws IOException {
    return get(metadataAsync(prefix, null), "metadata read");
  }

  private ProcedureInfo describe(StoredProcedure p) {
    return codec.describe(p.getProcId(), p.getData().toByteArray());
  }

  private CompletableFuture<QueryReply> query(Query query, RaftPeerId server) {
    return query(query, server, false);
  }

  /**
   * A linearizable read by {@code server} (the leader if null); with {@code stay}, every attempt
   * goes to {@code server}, else the attempts after the first go to the leader.
   */
  private CompletableFuture<QueryReply> query(Query query, RaftPeerId server, boolean stay) {
    Message message = Message.valueOf(UnsafeByteOperations.unsafeWrap(query.toByteArray()));
    long deadline = System.nanoTime() + requestTimeout.toNanos();
    return queryUntil(message, server, stay, deadline)
        .orTimeout(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * One linearizable read, tried again until the deadline while it cannot be answered yet:
   *
   * <ul>
   *   <li>during an election Ratis answers a read index request at once with "leader is unknown" or
   *       "not ready" (where a write would wait for the new leader);
   *   <li>a follower whose own connection to the leader fails (e.g. the leader restarted and the
   *       follower's gRPC channel to it is still backing off) does not answer at all: Ratis 3.3.0
   *       drops the request when the follower's read index call fails with a transport error, and
   *       the client would wait for its whole RPC timeout. So each attempt has its own, shorter
   *       timeout, and the attempts after the first go to the leader, whose answer is as
   *       linearizable as the follower's.
   * </ul>
   */
  private CompletableFuture<QueryReply> queryUntil(
      Message message, RaftPeerId server, boolean stay, long deadline) {
    // unordered: a read never waits behind an earlier request of this client (an ordered read
    // would wait for every earlier read to the same server, even one abandoned after a timeout)
    CompletableFuture<RaftClientReply> sent =
        offCaller(
            () ->
                server == null
                    ? raft.async().sendReadOnlyUnordered(message)
                    : raft.async().sendReadOnlyUnordered(message, server));
    return sent.thenApply(
            reply -> {
              try {
                return QueryReply.parseFrom(RaftReplies.content(reply));
              } catch (InvalidProtocolBufferException e) {
                throw new CompletionException(new IOException("unreadable query reply", e));
              }
            })
        .orTimeout(readAttemptTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(
            error -> {
              Throwable cause = RaftReplies.unwrap(error);
              boolean retry = RaftReplies.isNoLeaderYet(cause) || cause instanceof TimeoutException;
              if (!retry
                  || System.nanoTime() + ConsensusWaits.CLIENT_RETRY_PAUSE.toNanos() >= deadline) {
                return CompletableFuture.failedFuture(cause);
              }
              return CompletableFuture.supplyAsync(
                      () -> null,
                      CompletableFuture.delayedExecutor(
                          ConsensusWaits.CLIENT_RETRY_PAUSE.toMillis(), TimeUnit.MILLISECONDS))
                  .thenCompose(
                      ignored -> queryUntil(message, stay ? server : null, stay, deadline));
            });
  }

  /** How long one read attempt may take before the next one starts. */
  Duration readAttemptTimeout() {
    Duration d = requestTimeout.dividedBy(ConsensusWaits.READ_ATTEMPTS);
    return d.compareTo(ConsensusWaits.READ_ATTEMPT_MIN) < 0 ? ConsensusWaits.READ_ATTEMPT_MIN : d;
  }

  /** The id a submission's result carries; the refusal it carries as an exception. */
  static long procIdOf(SubmitResult result, String type) throws IOException {
    switch (result.getKindCase()) {
      case PROC_ID:
        return result.getProcId();
      case OVER_CAPACITY:
        throw new LiveProcedureCapException(
            "submission of " + type + " refused: " + result.getOverCapacity());
      default:
        throw new IOException("submission of " + type + " refused: " + result.getRejected());
    }
  }

  /** As {@link #procIdOf}, for a stage of a future: a refusal completes it exceptionally. */
  static long procIdInStage(SubmitResult result, String type) {
    try {
      return procIdOf(result, type);
    } catch (IOException refused) {
      throw new CompletionException(refused);
    }
  }

  private <T> T get(CompletableFuture<T> future, String what) throws IOException {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted during " + what);
    } catch (ExecutionException e) {
      throw RaftReplies.asIOException(e.getCause(), what, requestTimeout);
    }
  }
}
