package dev.baton.consensus;

import dev.baton.consensus.proto.AbortOutcome;
import dev.baton.consensus.proto.QueryReply;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * The decisions of this node's executors on the abort entries it applied as leader, by the entry's
 * log index, for the requesters to read ({@code Query.abort_outcome}). The apply of an abort entry
 * only records the pending decision here and returns: Ratis counts an entry as applied for its
 * linearizable reads (and waits for it before a snapshot) only once its apply completes, and the
 * executor that decides may still be rebuilding.
 *
 * <p>Bounded: beyond {@link #MAX_REMEMBERED} the oldest decision is forgotten (a requester reads
 * its decision right after its entry is applied).
 */
final class AbortOutcomes {
  /** How many decisions a node keeps for requesters to read. */
  static final int MAX_REMEMBERED = 4096;

  private final String nodeId;

  private final Map<Long, CompletableFuture<Boolean>> byIndex =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, CompletableFuture<Boolean>> eldest) {
          return size() > MAX_REMEMBERED;
        }
      };

  AbortOutcomes(String nodeId) {
    this.nodeId = nodeId;
  }

  /** The executor's coming decision on the abort entry at {@code index}. */
  synchronized void pending(long index, CompletableFuture<Boolean> decision) {
    byIndex.put(index, decision);
  }

  /** Once decided, the decision on the abort entry at {@code index}, or why it is unknown here. */
  CompletableFuture<AbortOutcome> outcome(long index) {
    CompletableFuture<Boolean> decision;
    synchronized (this) {
      decision = byIndex.get(index);
    }
    if (decision == null) {
      return CompletableFuture.completedFuture(
          unknown(
              "node "
                  + nodeId
                  + " holds no decision on the abort at log index "
                  + index
                  + ": it did not apply it as the leader, or it forgot it (it keeps the last "
                  + MAX_REMEMBERED
                  + ")"));
    }
    return decision.handle(
        (aborted, error) ->
            error == null
                ? AbortOutcome.newBuilder().setAborted(aborted).build()
                : unknown(
                    "the executor of node "
                        + nodeId
                        + " did not decide on the abort at log index "
                        + index
                        + ": "
                        + cause(error).getMessage()));
  }

  /** {@link #outcome} as the reply to a {@code Query.abort_outcome}. */
  CompletableFuture<Message> reply(long index) {
    return outcome(index)
        .thenApply(
            o ->
                Message.valueOf(
                    UnsafeByteOperations.unsafeWrap(
                        QueryReply.newBuilder().setAbortOutcome(o).build().toByteArray())));
  }

  /**
   * The requester's side: the executor's decision in {@code reply}, or a {@link
   * CompletionException} with an {@link IOException} that says why it is not known.
   */
  static boolean decision(QueryReply reply, long procId) {
    AbortOutcome o = reply.getAbortOutcome();
    if (o.getKindCase() != AbortOutcome.KindCase.ABORTED) {
      throw new CompletionException(
          new IOException(
              "the abort of procedure "
                  + procId
                  + " was recorded, but its outcome is not known: "
                  + o.getUnknown()
                  + "; read the procedure's state, or abort it again"));
    }
    return o.getAborted();
  }

  private static AbortOutcome unknown(String why) {
    return AbortOutcome.newBuilder().setUnknown(why).build();
  }

  private static Throwable cause(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }
}
