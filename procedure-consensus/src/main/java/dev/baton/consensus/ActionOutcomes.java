package dev.baton.consensus;

import dev.baton.consensus.proto.ActionResult;
import dev.baton.consensus.proto.QueryReply;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * The outcomes of this node's executors on the operator action entries it applied as leader, by the
 * entry's log index, for requesters to read ({@code Query.action_outcome}); the apply only records
 * the coming outcome (see {@link AbortOutcomes} for why). Bounded: beyond {@link
 * AbortOutcomes#MAX_REMEMBERED} the oldest is forgotten. The replicated record of each outcome is
 * the audit trail's ({@link AuditTrail}).
 */
final class ActionOutcomes {
  private final String nodeId;

  private final Map<Long, CompletableFuture<ActionResult>> byIndex =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(
            Map.Entry<Long, CompletableFuture<ActionResult>> eldest) {
          return size() > AbortOutcomes.MAX_REMEMBERED;
        }
      };

  ActionOutcomes(String nodeId) {
    this.nodeId = nodeId;
  }

  synchronized void pending(long index, CompletableFuture<ActionResult> outcome) {
    byIndex.put(index, outcome);
  }

  /** Once decided, the reply to a {@code Query.action_outcome} for {@code index}. */
  CompletableFuture<Message> reply(long index) {
    CompletableFuture<ActionResult> outcome;
    synchronized (this) {
      outcome = byIndex.get(index);
    }
    if (outcome == null) {
      return CompletableFuture.completedFuture(
          unknown(
              "node "
                  + nodeId
                  + " holds no outcome of the action at log index "
                  + index
                  + ": it did not apply it as the leader, or forgot it"));
    }
    return outcome.handle(
        (r, error) ->
            error == null
                ? message(QueryReply.newBuilder().setActionResult(r).build())
                : unknown(
                    "the executor of node "
                        + nodeId
                        + " did not carry out the action at log index "
                        + index
                        + ": "
                        + error.getMessage()));
  }

  private static Message unknown(String why) {
    return message(QueryReply.newBuilder().setUnknown(why).build());
  }

  private static Message message(QueryReply reply) {
    return Message.valueOf(UnsafeByteOperations.unsafeWrap(reply.toByteArray()));
  }
}
