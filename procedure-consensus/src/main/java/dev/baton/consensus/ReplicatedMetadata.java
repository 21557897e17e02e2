package dev.baton.consensus;

import com.google.protobuf.ByteString;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.MetadataEntry;
import dev.baton.consensus.proto.MetadataWrite;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Application metadata replicated beside the procedures (a ConfigNode's databases, regions and
 * DataNodes): a sorted map of keys to bytes, in the same state machine and snapshots. It changes
 * only through {@link #write}, which procedure steps call with their leader context: the write is
 * fenced by that term and executor epoch like every store write, so neither an executor of an
 * earlier term nor one replaced within the term (see {@link LeaderContext#epoch}) can change it.
 * Writes should be idempotent (a step may run again after a failover).
 */
public final class ReplicatedMetadata {
  private final ProcedureStateMachine stateMachine;
  private final Supplier<LocalSubmitter> raft;
  private final Supplier<ProcedureClient> client;
  private final String nodeId;
  private final Duration timeout;

  ReplicatedMetadata(
      ProcedureStateMachine stateMachine,
      Supplier<LocalSubmitter> raft,
      Supplier<ProcedureClient> client,
      String nodeId,
      Duration timeout) {
    this.stateMachine = stateMachine;
    this.raft = raft;
    this.client = client;
    this.nodeId = nodeId;
    this.timeout = timeout;
  }

  /**
   * Puts and deletes atomically, as the leader of {@code leader.term()}; returns once applied.
   *
   * @throws NotLeaderException if this node no longer leads that term (nothing changed)
   */
  public void write(LeaderContext leader, Map<String, byte[]> puts, Collection<String> deletes)
      throws IOException {
    if (!leader.nodeId().equals(nodeId)) {
      throw new IllegalArgumentException(
          "leader context of " + leader.nodeId() + " used on node " + nodeId);
    }
    MetadataWrite.Builder write =
        MetadataWrite.newBuilder().setTerm(leader.term()).setEpoch(leader.epoch());
    puts.forEach(
        (k, v) ->
            write.addPuts(MetadataEntry.newBuilder().setKey(k).setValue(ByteString.copyFrom(v))));
    write.addAllDeletes(deletes);
    LocalSubmitter submitter = raft.get();
    if (submitter == null) {
      throw new NotLeaderException("node " + nodeId + " is not running");
    }
    CommandReply reply = await(submitter.submit(Command.newBuilder().setMetadata(write).build()));
    if (reply.getKindCase() != CommandReply.KindCase.WRITTEN) {
      throw new NotLeaderException("metadata write refused: " + reply.getRejected());
    }
  }

  /** This node's applied metadata under {@code prefix}; on the leader it includes its writes. */
  public SortedMap<String, byte[]> local(String prefix) {
    return stateMachine.table().metadata(prefix);
  }

  /** A linearizable read of the metadata under {@code prefix}, answered by this node. */
  public CompletableFuture<SortedMap<String, byte[]>> read(String prefix) {
    return client.get().metadataAsync(prefix, org.apache.ratis.protocol.RaftPeerId.valueOf(nodeId));
  }

  private CommandReply await(CompletableFuture<CommandReply> f) throws IOException {
    try {
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted during a metadata write");
    } catch (TimeoutException e) {
      throw new IOException("metadata write not committed within " + timeout);
    } catch (ExecutionException e) {
      throw RaftReplies.asIOException(e.getCause(), "metadata write", timeout);
    }
  }
}
