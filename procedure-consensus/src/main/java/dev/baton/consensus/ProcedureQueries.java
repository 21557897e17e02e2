package dev.baton.consensus;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnsafeByteOperations;
import dev.baton.consensus.proto.MetadataEntry;
import dev.baton.consensus.proto.Query;
import dev.baton.consensus.proto.QueryReply;
import dev.baton.consensus.proto.StoredProcedure;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.apache.ratis.protocol.Message;

/**
 * The read-only queries of the replicated state machine: procedures, metadata and the audit trail
 * from the {@link ProcedureTable} (under its lock, so each answer is one consistent view), and the
 * outcomes of aborts and operator actions from the leader's executor, and the index of the last
 * entry applied (on the leader, after Ratis' read index, that is a read index for a follower's
 * read: {@link ReadIndexService}).
 */
final class ProcedureQueries {
  private final ProcedureTable table;
  private final AbortOutcomes abortOutcomes;
  private final ActionOutcomes actionOutcomes;
  private final LongSupplier appliedIndex;

  ProcedureQueries(
      ProcedureTable table,
      AbortOutcomes abortOutcomes,
      ActionOutcomes actionOutcomes,
      LongSupplier appliedIndex) {
    this.table = table;
    this.abortOutcomes = abortOutcomes;
    this.actionOutcomes = actionOutcomes;
    this.appliedIndex = appliedIndex;
  }

  /**
   * Answers a serialized {@link Query}; fails with an IllegalArgumentException if it is not one.
   */
  CompletableFuture<Message> answer(Message request) {
    Query query;
    try {
      query = Query.parseFrom(request.getContent().asReadOnlyByteBuffer());
    } catch (InvalidProtocolBufferException e) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("not a procedure query: " + e.getMessage()));
    }
    if (query.getKindCase() == Query.KindCase.ABORT_OUTCOME) {
      return abortOutcomes.reply(query.getAbortOutcome());
    }
    if (query.getKindCase() == Query.KindCase.ACTION_OUTCOME) {
      return actionOutcomes.reply(query.getActionOutcome());
    }
    QueryReply.Builder reply = QueryReply.newBuilder();
    if (query.getKindCase() == Query.KindCase.APPLIED_INDEX) {
      return CompletableFuture.completedFuture(
          message(reply.setAppliedIndex(appliedIndex.getAsLong()).build()));
    }
    synchronized (table) {
      if (query.getKindCase() == Query.KindCase.AUDIT) {
        reply.addAllAudit(table.audit());
      } else if (query.getKindCase() == Query.KindCase.METADATA_PREFIX) {
        for (Map.Entry<String, byte[]> e : table.metadata(query.getMetadataPrefix()).entrySet()) {
          reply.addMetadata(
              MetadataEntry.newBuilder()
                  .setKey(e.getKey())
                  .setValue(UnsafeByteOperations.unsafeWrap(e.getValue())));
        }
      } else if (query.getKindCase() == Query.KindCase.GET) {
        byte[] data = table.get(query.getGet());
        if (data != null) {
          reply.addProcedures(stored(query.getGet(), data));
        }
      } else if (query.getKindCase() == Query.KindCase.LIST_PAGE) {
        for (Map.Entry<Long, byte[]> e : table.page(query.getListPage()).entrySet()) {
          reply.addProcedures(stored(e.getKey(), e.getValue()));
        }
      } else {
        for (Map.Entry<Long, byte[]> e : table.copy().entrySet()) {
          reply.addProcedures(stored(e.getKey(), e.getValue()));
        }
      }
    }
    return CompletableFuture.completedFuture(message(reply.build()));
  }

  private static Message message(QueryReply reply) {
    return Message.valueOf(
        org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations.unsafeWrap(
            reply.toByteArray()));
  }

  private static StoredProcedure stored(long procId, byte[] data) {
    return StoredProcedure.newBuilder()
        .setProcId(procId)
        .setData(UnsafeByteOperations.unsafeWrap(data))
        .build();
  }
}
