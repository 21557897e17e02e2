package dev.baton.consensus;

import com.google.protobuf.ByteString;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.ReserveIds;
import dev.baton.consensus.proto.StoreWrite;
import dev.baton.procedure.store.ProcedureStore;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreContents;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Collections;
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
 * <p>Each entry carries the term this store was made for and its executor epoch within the term;
 * the state machine rejects it if the entry lands in another term, or after a fence of a later
 * epoch. Once this node is no longer leader, or after {@link #stop}, writes fail at once with
 * {@link NotLeaderException}.
 */
final class RaftProcedureStore implements ProcedureStore {

  /** How long a write or an id reservation may wait for its entry to be applied. */
  static final Duration DEFAULT_WRITE_TIMEOUT = Duration.ofSeconds(10);

  private final ProcedureStateMachine stateMachine;
  private final LocalSubmitter raft;
  private final long term;
  private final long epoch;
  private final Duration writeTimeout;
  private final BooleanSupplier isLeader;
  private final String name;
  private final EntryBatcher<Void> batcher;
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
            this::notLeader,
            limits,
            writeTimeout,
            timings.queued(),
            timings.committed());
  }

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    batcher.stop();
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

  long term() {
    return term;
  }

  @Override
  public void write(StoreBatch batch) throws IOException {
    ensureWritable();
    await(batcher.add(batch.toProto().toByteString()), "store write");
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
        .add(batch.toProto().toByteString()) // bounded by the write timeout
        .exceptionallyCompose(e -> CompletableFuture.failedFuture(asIoException(e, "store write")));
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

  /** One log entry carrying the batches, stamped with this store's term. */
  private CompletableFuture<List<Void>> sendEntry(List<ByteString> batches) {
    Command command =
        Command.newBuilder()
            .setWrite(StoreWrite.newBuilder().setTerm(term).setEpoch(epoch).addAllBatches(batches))
            .build();
    return raft.submit(command)
        .thenApply(
            reply -> {
              if (reply.getKindCase() != CommandReply.KindCase.WRITTEN) {
                throw new CompletionException(
                    new NotLeaderException(
                        name + ": write rejected by the state machine: " + reply.getRejected()));
              }
              return Collections.nCopies(batches.size(), null);
            });
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
