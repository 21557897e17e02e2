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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The executor's store on the leader: every batch becomes part of a Raft log entry, and a write
 * returns once its entry is committed and applied to the {@link ProcedureStateMachine}.
 *
 * <p>Group commit, pipelined: a write that finds fewer than {@code maxEntriesInFlight} entries on
 * their way takes every queued batch (up to {@code maxBatchesPerEntry} and {@code maxEntryBytes})
 * into one entry; when an entry completes, the batches queued meanwhile go out as the next one.
 * Concurrent writes are causally independent (a procedure has at most one write in flight), so
 * entries may complete in any order.
 *
 * <p>Each entry carries the term this store was made for; the state machine rejects it if the entry
 * lands in another term. Once this node is no longer leader, or after {@link #stop}, writes fail at
 * once with {@link NotLeaderException}.
 */
final class RaftProcedureStore implements ProcedureStore {

  /** Bounds of one log entry and of the pipeline. */
  record Settings(
      int maxBatchesPerEntry, int maxEntryBytes, int maxEntriesInFlight, Duration writeTimeout) {
    static final int DEFAULT_MAX_BATCHES_PER_ENTRY = 512;
    static final int DEFAULT_MAX_ENTRY_BYTES = 1 << 20;
    static final int DEFAULT_MAX_ENTRIES_IN_FLIGHT = 2;
    static final Duration DEFAULT_WRITE_TIMEOUT = Duration.ofSeconds(10);

    static Settings defaults() {
      return new Settings(
          DEFAULT_MAX_BATCHES_PER_ENTRY,
          DEFAULT_MAX_ENTRY_BYTES,
          DEFAULT_MAX_ENTRIES_IN_FLIGHT,
          DEFAULT_WRITE_TIMEOUT);
    }
  }

  private record Pending(ByteString batch, CompletableFuture<Void> done) {}

  private final ProcedureStateMachine stateMachine;
  private final LocalSubmitter raft;
  private final long term;
  private final Settings settings;
  private final BooleanSupplier isLeader;
  private final String name;
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private final Set<List<Pending>> inFlight = new HashSet<>();
  private boolean running;
  private volatile long loadedIndex = -1;

  RaftProcedureStore(
      ProcedureStateMachine stateMachine,
      LocalSubmitter raft,
      long term,
      Settings settings,
      BooleanSupplier isLeader,
      String name) {
    this.stateMachine = stateMachine;
    this.raft = raft;
    this.term = term;
    this.settings = settings;
    this.isLeader = isLeader;
    this.name = name;
  }

  @Override
  public synchronized void start() {
    running = true;
  }

  @Override
  public void stop() {
    List<Pending> failed = new ArrayList<>();
    synchronized (this) {
      if (!running) {
        return;
      }
      running = false;
      failed.addAll(queue);
      queue.clear();
      for (List<Pending> entry : inFlight) {
        failed.addAll(entry);
      }
      inFlight.clear();
    }
    NotLeaderException cause = notLeader();
    for (Pending p : failed) {
      p.done().completeExceptionally(cause);
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return running;
  }

  /** The replicated table as of now; remembers the log index it includes. */
  @Override
  public StoreContents load() throws IOException {
    ensureWritable();
    ProcedureStateMachine.Loaded loaded = stateMachine.load();
    loadedIndex = loaded.appliedIndex();
    return loaded.contents();
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
    Pending pending = new Pending(batch.toProto().toByteString(), new CompletableFuture<>());
    List<Pending> entry;
    synchronized (this) {
      if (!running) {
        throw notLeader();
      }
      queue.addLast(pending);
      entry = takeEntryIfPipelineFree();
    }
    if (entry != null) {
      send(entry);
    }
    await(pending.done(), "store write");
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

  /** Takes the next entry's batches if fewer than the maximum entries are in flight. */
  private List<Pending> takeEntryIfPipelineFree() {
    if (queue.isEmpty() || inFlight.size() >= settings.maxEntriesInFlight()) {
      return null;
    }
    List<Pending> entry = new ArrayList<>();
    long bytes = 0;
    while (!queue.isEmpty() && entry.size() < settings.maxBatchesPerEntry()) {
      Pending next = queue.peekFirst();
      if (!entry.isEmpty() && bytes + next.batch().size() > settings.maxEntryBytes()) {
        break;
      }
      entry.add(queue.pollFirst());
      bytes += next.batch().size();
    }
    inFlight.add(entry);
    return entry;
  }

  private void send(List<Pending> entry) {
    StoreWrite.Builder write = StoreWrite.newBuilder().setTerm(term);
    for (Pending p : entry) {
      write.addBatches(p.batch());
    }
    raft.submit(Command.newBuilder().setWrite(write).build())
        .whenComplete((reply, error) -> completed(entry, reply, error));
  }

  private void completed(List<Pending> entry, CommandReply reply, Throwable error) {
    List<Pending> next;
    synchronized (this) {
      inFlight.remove(entry);
      next = running ? takeEntryIfPipelineFree() : null;
    }
    if (error != null) {
      Throwable cause = error.getCause() != null ? error.getCause() : error;
      for (Pending p : entry) {
        p.done().completeExceptionally(cause);
      }
    } else if (reply.getKindCase() != CommandReply.KindCase.WRITTEN) {
      NotLeaderException rejected =
          new NotLeaderException(
              name + ": write rejected by the state machine: " + reply.getRejected());
      for (Pending p : entry) {
        p.done().completeExceptionally(rejected);
      }
    } else {
      for (Pending p : entry) {
        p.done().complete(null);
      }
    }
    if (next != null) {
      send(next);
    }
  }

  private void ensureWritable() throws NotLeaderException {
    if (!isRunning() || !isLeader.getAsBoolean()) {
      throw notLeader();
    }
  }

  private NotLeaderException notLeader() {
    return new NotLeaderException(
        name + " is no longer the leader of term " + term + "; the write was not made durable");
  }

  private <T> T await(CompletableFuture<T> future, String what) throws IOException {
    try {
      return future.get(settings.writeTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(name + ": interrupted while waiting for a " + what);
    } catch (TimeoutException e) {
      throw new IOException(
          name
              + ": "
              + what
              + " not committed within "
              + settings.writeTimeout()
              + " (is a majority of the cluster up?)");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException(name + ": " + what + " failed: " + cause, cause);
    }
  }

  @Override
  public String toString() {
    return name + "{term " + term + "}";
  }
}
