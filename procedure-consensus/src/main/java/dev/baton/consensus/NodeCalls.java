package dev.baton.consensus;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import dev.baton.consensus.proto.AuditRecord;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.ListPage;
import dev.baton.consensus.proto.OperatorActionEntry;
import dev.baton.consensus.proto.Query;
import dev.baton.consensus.proto.QueryReply;
import dev.baton.consensus.proto.ReadIndexRequest;
import dev.baton.consensus.proto.Submit;
import dev.baton.consensus.proto.SubmitResult;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.Procedure;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;

/**
 * The calls a started {@link ProcedureNode} makes into its cluster, and what it makes them with:
 * submissions and aborts become log entries — on the leader through its own Raft server
 * (submissions group-committed by an {@link EntryBatcher}), elsewhere, or when leadership moved
 * meanwhile, through the client to the leader; reads are linearizable queries answered by this
 * node's own server (or the leader), and a wait for a procedure to finish looks at this node's
 * table each time the record changes. Every call is bounded by the request timeout ({@link
 * #bounded}), a wait by its own.
 */
final class NodeCalls {
  private static final Query APPLIED_INDEX = Query.newBuilder().setAppliedIndex(true).build();

  private final ProcedureCodec codec;
  private final LongSupplier clock;
  private final Duration requestTimeout;
  private final LocalSubmitter local;
  private final ProcedureClient client;
  private final BooleanSupplier isLeader;
  private final EntryBatcher<ByteString, SubmitResult> submissions;
  private final Supplier<RaftProcedureStore> executorStore;
  private final RecordWatch watch;
  private final LongFunction<Optional<ProcedureInfo>> localInfo;
  private final FollowerReads followerReads;
  private final LongAdder commitIndexSends = new LongAdder();

  NodeCalls(
      String nodeId,
      RaftServer server,
      ClientId localClient,
      RaftGroup group,
      ProcedureRegistry registry,
      RaftSettings settings,
      RaftSecurity security,
      LongSupplier clock,
      BooleanSupplier isLeader,
      Supplier<RaftProcedureStore> executorStore,
      EntryBatcher.Limits limits,
      RecordWatch watch,
      LongFunction<byte[]> localRecord,
      BooleanSupplier onApplyThread,
      AppliedWaits applied,
      Function<Message, CompletableFuture<Message>> localQuery) {
    this.codec = new ProcedureCodec(registry);
    this.clock = clock;
    this.requestTimeout = settings.requestTimeout();
    this.local = new LocalSubmitter(server, localClient, group.getGroupId(), nodeId, onApplyThread);
    this.client = new ProcedureClient(group, registry, settings, security);
    this.followerReads =
        new FollowerReads(
            nodeId, server, group.getGroupId(), security, applied, localQuery, local::read);
    this.isLeader = isLeader;
    this.executorStore = executorStore;
    this.watch = watch;
    this.localInfo =
        procId -> {
          byte[] record = localRecord.apply(procId);
          return record == null ? Optional.empty() : Optional.of(codec.describe(procId, record));
        };
    this.submissions =
        new EntryBatcher<>(
            envelopes -> submitEntry(local, envelopes),
            ByteString::size,
            () -> new NotLeaderException("node " + nodeId + " stopped"),
            limits);
  }

  LocalSubmitter local() {
    return local;
  }

  ProcedureClient client() {
    return client;
  }

  FollowerReads followerReads() {
    return followerReads;
  }

  /** Fails queued and in-flight local submissions; their callers may retry elsewhere. */
  void stopSubmissions() {
    submissions.stop();
  }

  /** Stops submissions and closes the client and the local submitter. */
  void close() {
    submissions.stop();
    followerReads.close();
    client.close();
    local.close();
  }

  /** See {@link ProcedureNode#getInfo}. */
  CompletableFuture<Optional<ProcedureInfo>> getInfo(long procId) {
    return bounded(
        read(ProcedureClient.getQuery(procId)).thenApply(client::infoOf),
        "read of procedure " + procId,
        requestTimeout);
  }

  /** See {@link ProcedureNode#list}. */
  CompletableFuture<List<ProcedureInfo>> list() {
    return bounded(
        read(ProcedureClient.LIST_QUERY).thenApply(client::listOf), "list", requestTimeout);
  }

  /**
   * A linearizable read answered by this node, within one read attempt's time: on the leader by its
   * own server (the lease, else a heartbeat round), on a follower by the leader's read index
   * ({@link FollowerReads}) or, if the leader cannot give one, by its own server's read index round
   * trip. If that fails too (no leader known yet, or this node's connection to the leader is down),
   * through the client to the leader, which retries until a leader answers.
   */
  private CompletableFuture<QueryReply> read(Query query) {
    Duration attempt = client.readAttemptTimeout();
    CompletableFuture<QueryReply> here =
        isLeader.getAsBoolean()
            ? local.read(query)
            : followerReads.read(query, attempt).exceptionallyCompose(e -> local.read(query));
    return here.orTimeout(attempt.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(e -> client.queryLeader(query));
  }

  /**
   * This node's read index as leader, for a follower's read ({@link ReadIndexService}): the index
   * applied when its own linearizable read ran. A follower that has not yet learned that this index
   * is committed is sent the commit index at once ({@link LocalSubmitter#sendCommitIndexTo}). Fails
   * unless this node leads.
   */
  CompletableFuture<Long> leaderReadIndex(ReadIndexRequest request) {
    if (!isLeader.getAsBoolean()) {
      return CompletableFuture.failedFuture(new NotLeaderException("not the leader"));
    }
    return local
        .read(APPLIED_INDEX)
        .thenApply(
            reply -> {
              long index = reply.getAppliedIndex();
              if (index > request.getCommitIndex() && !request.getRequestor().isEmpty()) {
                commitIndexSends.increment();
                local.sendCommitIndexTo(RaftPeerId.valueOf(request.getRequestor()));
              }
              return index;
            });
  }

  /**
   * Followers sent the commit index at once by {@link #leaderReadIndex}, since the node started.
   */
  long commitIndexSendCount() {
    return commitIndexSends.sum();
  }

  /** See {@link ProcedureNode#act}. */
  CompletableFuture<AuditEntry> act(OperatorActionEntry action) {
    return bounded(
        client.actionAsync(send(Command.newBuilder().setAction(action).build()), action),
        action.getAction() + " of " + action.getProcId(),
        requestTimeout);
  }

  /** See {@link ProcedureNode#recordResume}. */
  CompletableFuture<AuditEntry> record(OperatorActionEntry action) {
    String what = action.getAction() + " of " + action.getProcId();
    return bounded(
        send(Command.newBuilder().setAction(action).build())
            .thenApply(
                reply -> {
                  if (reply.getKindCase() != CommandReply.KindCase.RECORDED) {
                    throw new CompletionException(
                        new IllegalArgumentException(
                            what + " was not recorded: " + reply.getRejected()));
                  }
                  return AuditEntry.of(
                      AuditRecord.newBuilder()
                          .setIndex(reply.getRecorded())
                          .setAction(action)
                          .setDecided(true)
                          .setRefused(action.getRefused())
                          .setOutcome(action.getOutcome())
                          .build());
                }),
        what,
        requestTimeout);
  }

  /** See {@link ProcedureNode#page}. */
  CompletableFuture<List<ProcedureInfo>> page(ListPage page) {
    return bounded(
        read(Query.newBuilder().setListPage(page).build()).thenApply(client::listOf),
        "list page",
        requestTimeout);
  }

  /** See {@link ProcedureNode#audit}. */
  CompletableFuture<List<AuditEntry>> audit() {
    return read(Query.newBuilder().setAudit(true).build())
        .thenApply(r -> r.getAuditList().stream().map(AuditEntry::of).toList());
  }

  /** See {@link ProcedureNode#awaitFinished}. */
  CompletableFuture<Optional<ProcedureInfo>> awaitFinished(long procId, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    return getInfo(procId)
        .thenCompose(
            first ->
                first.isEmpty() || first.get().finished()
                    ? CompletableFuture.completedFuture(first)
                    : untilFinished(procId, deadline));
  }

  /**
   * Looks at the procedure in this node's table each time its record changes, until it finished, or
   * the deadline passed (then one more linearizable read answers). The waiter is registered before
   * each look, so a change between look and wait still wakes it. The linearizable read before the
   * first look may have been answered by the leader (this node's own read failed: say its log lags
   * behind), so this node's table may be older than that read: a record missing from it is not
   * taken for a deletion, a linearizable read answers instead.
   */
  private CompletableFuture<Optional<ProcedureInfo>> untilFinished(long procId, long deadline) {
    CompletableFuture<Void> change = watch.next(procId);
    Optional<ProcedureInfo> now = localInfo.apply(procId);
    if (now.isEmpty()) {
      watch.forget(procId, change);
      return getInfo(procId);
    }
    if (now.get().finished()) {
      watch.forget(procId, change);
      return CompletableFuture.completedFuture(now);
    }
    long left = deadline - System.nanoTime();
    if (left <= 0) {
      watch.forget(procId, change);
      return getInfo(procId);
    }
    return change
        .completeOnTimeout(null, left, TimeUnit.NANOSECONDS)
        .thenComposeAsync(
            woken -> {
              watch.forget(procId, change);
              return untilFinished(procId, deadline);
            },
            watch.executor());
  }

  /** See {@link ProcedureNode#submit}. */
  CompletableFuture<Long> submit(Procedure<?> proc, NonceKey nonce) {
    byte[] envelope;
    try {
      envelope = codec.encodeSubmission(proc, nonce, clock.getAsLong());
    } catch (IOException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (envelope.length > ProcedureNode.MAX_SUBMISSION_BYTES) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(
              "procedure "
                  + proc.getType()
                  + " serializes to "
                  + envelope.length
                  + " bytes; the limit is "
                  + ProcedureNode.MAX_SUBMISSION_BYTES));
    }
    ByteString bytes = UnsafeByteOperations.unsafeWrap(envelope); // a fresh array: not copied
    return bounded(
        submitLocallyOrForward(bytes)
            .thenApplyAsync(
                result -> ProcedureClient.procIdInStage(result, proc.getType()),
                local.callerReplies()),
        "submission of " + proc.getType(),
        requestTimeout);
  }

  /** See {@link ProcedureNode#abort}. */
  CompletableFuture<Boolean> abort(long procId) {
    return bounded(
        client.abortAsync(send(ProcedureClient.abortCommand(procId)), procId),
        "abort of " + procId,
        requestTimeout);
  }

  /**
   * On the leader, the submission joins the next group-committed entry: its running executor's next
   * store entry, or (while none runs) the next entry of submissions; elsewhere (or when the leader
   * moved meanwhile) it goes to the leader through the client.
   */
  private CompletableFuture<SubmitResult> submitLocallyOrForward(ByteString envelope) {
    if (!isLeader.getAsBoolean()) {
      return client.submit(envelope);
    }
    RaftProcedureStore store = executorStore.get();
    CompletableFuture<SubmitResult> local =
        store != null && store.isRunning() ? store.submit(envelope) : submissions.add(envelope);
    return local.exceptionallyCompose(
        e ->
            RaftReplies.unwrap(e) instanceof NotLeaderException
                ? client.submit(envelope)
                : CompletableFuture.failedFuture(RaftReplies.unwrap(e)));
  }

  private static CompletableFuture<List<SubmitResult>> submitEntry(
      LocalSubmitter raft, List<ByteString> envelopes) {
    Command command =
        Command.newBuilder().setSubmit(Submit.newBuilder().addAllEnvelopes(envelopes)).build();
    return raft.submit(command).thenApply(ProcedureClient::submitResults);
  }

  /**
   * On the leader: append through the local server; elsewhere, through the client to the leader.
   */
  private CompletableFuture<CommandReply> send(Command command) {
    if (isLeader.getAsBoolean()) {
      return local
          .submit(command)
          .exceptionallyCompose(
              e ->
                  RaftReplies.unwrap(e) instanceof NotLeaderException
                      ? client.send(command)
                      : CompletableFuture.failedFuture(RaftReplies.unwrap(e)));
    }
    return client.send(command);
  }

  /**
   * Every call of a node completes within the request timeout, and fails with an {@link
   * IOException} that says why: no leader or no majority (a timeout), not leader, or refused. A
   * local submission on a leader that lost its majority would otherwise wait until Ratis steps it
   * down, then start the client's own timeout again; and a bare {@code TimeoutException} says
   * nothing to the caller.
   */
  static <T> CompletableFuture<T> bounded(
      CompletableFuture<T> call, String what, Duration timeout) {
    return call.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .handle(
            (value, error) -> {
              if (error != null) {
                throw new CompletionException(
                    RaftReplies.asIOException(RaftReplies.unwrap(error), what, timeout));
              }
              return value;
            });
  }
}
