package dev.baton.consensus;

import com.google.protobuf.ByteString;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.ReserveIds;
import dev.baton.consensus.proto.StoreWrite;
import dev.baton.consensus.proto.SubmitResult;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreContents;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The executor's store on the leader: every batch becomes part of a Raft log entry, and a write
 * returns once its entry is committed and applied to the {@link ProcedureStateMachine}.
 *
 * <p>Group commit through an {@link EntryBatcher}: concurrent writes share one entry. Concurrent
 * writes are causally independent (a procedure has at most one write in flight), so entries may
 * complete in any order.
 *
 * <p>While it runs, the entries also carry this node's own submissions ({@link #submit}): on their
 * own, submissions would fill many entries of a busy leader, and every entry costs each member
 * about the same work whatever it carries. They are applied whatever the fencing decides about the
 * batches beside them: a submission is valid in any term.
 *
 * <p>Each entry carries the term this store was made for and its executor epoch within the term;
 * the state machine rejects it if the entry lands in another term, or after a fence of a later
 * epoch. Once this node is no longer leader, or after {@link #stop}, writes fail at once with
 * {@link NotLeaderException}.
 */
final class RaftProcedureStore implements ProcedureStore {

  private final ProcedureStateMachine stateMachine;
  private final LocalSubmitter raft;
  private final long term;
  private final long epoch;
  private final Duration writeTimeout;
  private final BooleanSupplier isLeader;
  private final String name;
  private final EntryBatcher<Item, SubmitResult> batcher;
  private volatile boolean running;
  private volatile long loadedIndex = -1;
  private volatile long loadNanos;

  RaftProcedureStore(
      ProcedureStateMachine stateMachine,
      LocalSubmitter raft,
      long term,
      long epoch,
      EntryBatcher.Limits limits,
      Duration writeTimeout,
      BooleanSupplier isLeader,
      String name) {
    this.stateMachine = stateMachine;
    this.raft = raft;
    this.term = term;
    this.epoch = epoch;
    this.writeTimeout = writeTimeout;
    this.isLeader = isLeader;
    this.name = name;
    WriteTimings timings = stateMachine.writeTimings();
    this.batcher =
        new EntryBatcher<>(
            this::sendEntry,
            item -> item.bytes().size(),
            this::notLeader,
            limits,
            writeTimeout,
            timings.queued(),
            timings.committed(),
            System::nanoTime);
  }

  @Override
  public void start() {
    running = true;
  }

  /**
   * Fails every queued write and every write on its way at once; a carried submission on its way
   * waits for its entry's reply instead (the entry may still be committed, and one without a nonce
   * sent again elsewhere would then be applied twice).
   */
  @Override
  public void stop() {
    running = false;
    batcher.stop(Item::submission);
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** The replicated table as of now; remembers the log index it includes. */
  @Override
  public StoreContents load() throws IOException {
    ensureWritable();
    long start = System.nanoTime();
    ProcedureStateMachine.Loaded loaded = stateMachine.load();
    loadNanos = System.nanoTime() - start;
    loadedIndex = loaded.appliedIndex();
    return loaded.contents();
  }

  /** How long the last {@link #load} took to copy the table, in nanoseconds. */
  long loadNanos() {
    return loadNanos;
  }

  /** The log index of the table the last {@link #load} returned. */
  long loadedIndex() {
    return loadedIndex;
  }

  /** The executor epoch this store's writes are stamped with. */
  long epoch() {
    return epoch;
  }

  long term() {
    return term;
  }

  /**
   * One item of an entry: a store batch, or a submission carried along. A batch's result is {@link
   * SubmitResult#getDefaultInstance()} when written, one with the reason when refused.
   */
  private record Item(ByteString bytes, boolean submission) {}

  /** A store batch written, as a result of the shared batcher. */
  private static final SubmitResult WRITTEN = SubmitResult.getDefaultInstance();

  @Override
  public void write(StoreBatch batch) throws IOException {
    ensureWritable();
    written(await(batcher.add(new Item(batch.toProto().toByteString(), false)), "store write"));
  }

  /**
   * Queues the batch for the next log entry and returns at once; the future completes once the
   * entry is committed and applied (or with the {@link IOException} {@link #write} would throw,
   * also after the write timeout). The executor never has two writes of one procedure in flight and
   * makes a write that another depends on durable before the dependent one starts.
   */
  @Override
  public CompletableFuture<Void> writeAsync(StoreBatch batch) {
    try {
      ensureWritable();
    } catch (NotLeaderException e) {
      return CompletableFuture.failedFuture(e);
    }
    return batcher
        .add(new Item(batch.toProto().toByteString(), false)) // bounded by the write timeout
        .handle(
            (result, error) -> {
              if (error != null) {
                throw new CompletionException(asIoException(error, "store write"));
              }
              try {
                written(result);
              } catch (NotLeaderException refused) {
                throw new CompletionException(refused);
              }
              return null;
            });
  }

  /**
   * Submits a new root procedure (a {@code ProcedureEnvelope} without an id) in this store's next
   * entry; completes with the state machine's result for it, or fails with {@link
   * NotLeaderException} if this store is not running (the caller may send it another way: a
   * submission in an entry that did reach the log is answered again by its nonce).
   */
  CompletableFuture<SubmitResult> submit(ByteString envelope) {
    try {
      ensureWritable();
    } catch (NotLeaderException e) {
      return CompletableFuture.failedFuture(e);
    }
    return batcher.add(new Item(envelope, true));
  }

  private void written(SubmitResult result) throws NotLeaderException {
    if (result != WRITTEN) {
      throw new NotLeaderException(
          name + ": write rejected by the state machine: " + result.getRejected());
    }
  }

  @Override
  public long reserveProcIds(long highestKnown, int count) throws IOException {
    ensureWritable();
    Command command =
        Command.newBuilder()
            .setReserve(ReserveIds.newBuilder().setTerm(term).setCount(count))
            .build();
    CommandReply reply = await(raft.submit(command), "id reservation");
    if (reply.getKindCase() != CommandReply.KindCase.FIRST_ID) {
      throw new NotLeaderException(name + ": id reservation refused: " + reply.getRejected());
    }
    return reply.getFirstId();
  }

  /** One log entry carrying the batches and submissions, stamped with this store's term. */
  private CompletableFuture<List<SubmitResult>> sendEntry(List<Item> items) {
    StoreWrite.Builder write =
        StoreWrite.newBuilder()
            .setTerm(term)
            .setEpoch(epoch)
            .setLiveCap(stateMachine.maxLiveProcedures());
    for (Item item : items) {
      if (item.submission()) {
        write.addEnvelopes(item.bytes());
      } else {
        write.addBatches(item.bytes());
      }
    }
    int submissions = write.getEnvelopesCount();
    return raft.submit(Command.newBuilder().setWrite(write).build())
        .thenApply(reply -> results(items, submissions, reply));
  }

  /** Each item's result from the entry's reply, in the items' order. */
  private static List<SubmitResult> results(List<Item> items, int submissions, CommandReply reply) {
    if (reply.getCarried().getResultsCount() != submissions) {
      throw new CompletionException(
          new IOException(
              "a store entry carried "
                  + submissions
                  + " submissions but its reply answers "
                  + reply.getCarried().getResultsCount()));
    }
    SubmitResult batchResult =
        reply.getKindCase() == CommandReply.KindCase.WRITTEN
            ? WRITTEN
            : SubmitResult.newBuilder().setRejected(reply.getRejected()).build();
    List<SubmitResult> results = new ArrayList<>(items.size());
    int carried = 0;
    for (Item item : items) {
      results.add(item.submission() ? reply.getCarried().getResults(carried++) : batchResult);
    }
    return results;
  }

  private void ensureWritable() throws NotLeaderException {
    if (!running || !isLeader.getAsBoolean()) {
      throw notLeader();
    }
  }

  private NotLeaderException notLeader() {
    return new NotLeaderException(
        name + " is no longer the leader of term " + term + "; the write was not made durable");
  }

  private <T> T await(CompletableFuture<T> future, String what) throws IOException {
    try {
      return future.get(writeTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(name + ": interrupted while waiting for a " + what);
    } catch (TimeoutException e) {
      throw asIoException(e, what);
    } catch (ExecutionException e) {
      throw asIoException(e.getCause(), what);
    }
  }

  /** The IOException a failed or timed-out write or reservation reports. */
  private IOException asIoException(Throwable failure, String what) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause instanceof TimeoutException) {
      return new IOException(
          name
              + ": "
              + what
              + " not committed within "
              + writeTimeout
              + " (is a majority of the cluster up?)");
    }
    if (cause instanceof IOException io) {
      return io;
    }
    return new IOException(name + ": " + what + " failed: " + cause, cause);
  }

  @Override
  public String toString() {
    return name + "{term " + term + ", epoch " + epoch + "}";
  }
}
