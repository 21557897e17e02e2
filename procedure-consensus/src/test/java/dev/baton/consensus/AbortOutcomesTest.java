package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.consensus.proto.AbortOutcome;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.Query;
import dev.baton.consensus.proto.QueryReply;
import dev.baton.procedure.ProcedureCodec;
import dev.baton.procedure.ProcedureRegistry;
import dev.baton.procedure.store.StoreRecord;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An abort entry's apply completes at once, whatever the executor is doing: Ratis counts an entry
 * as applied for linearizable reads (and for snapshots) only when its apply completes. The decision
 * is read apart, by the entry's index, from the node that applied it as leader.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AbortOutcomesTest {
  private static final long TERM = 2;

  private static ProcedureStateMachine stateMachine(String nodeId) {
    return new ProcedureStateMachine(
        nodeId,
        new EntryAdmission(ClientId.randomId(), 0, new ProcedureCodec(new ProcedureRegistry())));
  }

  @Test
  void theApplyOfAnAbortCompletesBeforeTheExecutorDecides() throws Exception {
    CompletableFuture<Boolean> decision = new CompletableFuture<>();
    ProcedureStateMachine sm = stateMachine("n1");
    sm.setListener(new Deciding(decision));

    CompletableFuture<Message> applied = sm.applyTransaction(abortEntry(sm, 7, 42));

    assertTrue(applied.isDone(), "the apply waited for the executor");
    CommandReply reply = CommandReply.parseFrom(applied.get().getContent().toByteArray());
    assertEquals(CommandReply.KindCase.ABORT_PENDING, reply.getKindCase());
    assertEquals(7, reply.getAbortPending().getIndex());
    assertEquals("n1", reply.getAbortPending().getNode());
    assertEquals(7, sm.appliedIndex());

    CompletableFuture<AbortOutcome> outcome = outcome(sm, 7);
    assertFalse(outcome.isDone(), "answered before the executor decided");
    decision.complete(true);
    assertEquals(AbortOutcome.KindCase.ABORTED, outcome.get(10, TimeUnit.SECONDS).getKindCase());
    assertTrue(outcome.get().getAborted());
  }

  @Test
  void aFollowerOrAnExecutorThatStoppedGivesNoDecisionButSaysWhy() throws Exception {
    ProcedureStateMachine follower = stateMachine("n2");
    follower.setListener(new Deciding(null)); // not the leader: its executor does not decide
    follower.applyTransaction(abortEntry(follower, 3, 42)).get(10, TimeUnit.SECONDS);
    AbortOutcome none = outcome(follower, 3).get(10, TimeUnit.SECONDS);
    assertEquals(AbortOutcome.KindCase.UNKNOWN, none.getKindCase());
    assertTrue(none.getUnknown().contains("n2"), none.getUnknown());
    assertTrue(none.getUnknown().contains("log index 3"), none.getUnknown());

    CompletableFuture<Boolean> decision = new CompletableFuture<>();
    ProcedureStateMachine leader = stateMachine("n1");
    leader.setListener(new Deciding(decision));
    leader.applyTransaction(abortEntry(leader, 4, 42)).get(10, TimeUnit.SECONDS);
    decision.completeExceptionally(new NotLeaderException("the executor of term 2 stopped"));
    AbortOutcome stopped = outcome(leader, 4).get(10, TimeUnit.SECONDS);
    assertEquals(AbortOutcome.KindCase.UNKNOWN, stopped.getKindCase());
    assertTrue(stopped.getUnknown().contains("term 2 stopped"), stopped.getUnknown());
  }

  @Test
  void theOldestDecisionsAreForgottenBeyondTheBound() throws Exception {
    AbortOutcomes outcomes = new AbortOutcomes("n1");
    for (long index = 1; index <= AbortOutcomes.MAX_REMEMBERED + 1; index++) {
      outcomes.pending(index, CompletableFuture.completedFuture(index % 2 == 0));
    }
    assertEquals(
        AbortOutcome.KindCase.UNKNOWN, outcomes.outcome(1).get(10, TimeUnit.SECONDS).getKindCase());
    assertTrue(outcomes.outcome(2).get(10, TimeUnit.SECONDS).getAborted());
    assertFalse(
        outcomes.outcome(AbortOutcomes.MAX_REMEMBERED + 1).get(10, TimeUnit.SECONDS).getAborted());
  }

  private static CompletableFuture<AbortOutcome> outcome(ProcedureStateMachine sm, long index) {
    Query q = Query.newBuilder().setAbortOutcome(index).build();
    return sm.query(Message.valueOf(UnsafeByteOperations.unsafeWrap(q.toByteArray())))
        .thenApply(
            m -> {
              try {
                return QueryReply.parseFrom(m.getContent().toByteArray()).getAbortOutcome();
              } catch (IOException e) {
                throw new AssertionError("unreadable query reply", e);
              }
            });
  }

  private static TransactionContext abortEntry(ProcedureStateMachine sm, long index, long procId) {
    Command abort = ProcedureClient.abortCommand(procId);
    LogEntryProto entry =
        LogEntryProto.newBuilder()
            .setTerm(TERM)
            .setIndex(index)
            .setStateMachineLogEntry(
                StateMachineLogEntryProto.newBuilder()
                    .setLogData(UnsafeByteOperations.unsafeWrap(abort.toByteArray())))
            .build();
    return TransactionContext.newBuilder()
        .setStateMachine(sm)
        .setServerRole(RaftPeerRole.FOLLOWER)
        .setLogEntry(entry)
        .build();
  }

  /** A listener whose executor's decision on any abort is {@code decision} (null: not leader). */
  private record Deciding(CompletableFuture<Boolean> decision)
      implements ProcedureStateMachine.Listener {
    @Override
    public void leaderChanged(boolean self) {}

    @Override
    public void leaderReady() {}

    @Override
    public void notLeader() {}

    @Override
    public void submitted(long index, StoreRecord record) {}

    @Override
    public CompletableFuture<Boolean> abortRequested(long procId) {
      return decision;
    }

    @Override
    public CompletableFuture<dev.baton.consensus.proto.ActionResult> actionRequested(
        long index, dev.baton.consensus.proto.OperatorActionEntry action) {
      return null;
    }
  }
}
