package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.ReserveIds;
import dev.baton.consensus.proto.StoreWrite;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.store.StoreBatch;
import dev.baton.procedure.store.StoreRecord;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The term fence of the state machine: an executor's store write or id reservation counts only in
 * the term the executor was built for. A paused ex-leader whose writes reach the log later (through
 * a client retry, say) changes nothing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FencingTest {
  /** An id no procedure of the test gets. */
  static final long FOREIGN_ID = 999_999;

  @TempDir Path dir;

  @Test
  void writesAndReservationsOfAnotherTermAreRejectedOnEveryNodeAndChangeNothing() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> first = cluster.awaitRunningLeader();
      long staleTerm = first.term();
      long done = first.submit(new Work("done"), null).get(30, TimeUnit.SECONDS);
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(first, done).state());

      // a new leader in a later term; the old one comes back as a follower
      cluster.kill(first.nodeId());
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      cluster.start(first.nodeId());
      long term = leader.term();
      assertTrue(term > staleTerm);
      cluster.awaitSameTables();

      Map<String, Long> rejectedBefore = new HashMap<>();
      Map<String, Map<Long, byte[]>> tablesBefore = new HashMap<>();
      Map<String, Long> maxIdBefore = new HashMap<>();
      for (ProcedureNode<Work.Env> n : cluster.running()) {
        rejectedBefore.put(n.nodeId(), n.rejectedWriteCount());
        tablesBefore.put(n.nodeId(), n.stateMachine().table().copy());
        maxIdBefore.put(n.nodeId(), n.stateMachine().table().maxProcId());
      }
      byte[] doneRecord = leader.stateMachine().table().get(done);
      // what the stale executor would write: overwrite a finished procedure, add another, move ids
      StoreBatch batch =
          StoreBatch.builder()
              .upsert(new StoreRecord(done, new byte[] {1, 2, 3}))
              .upsert(new StoreRecord(FOREIGN_ID, doneRecord))
              .maxProcId(FOREIGN_ID)
              .build();
      LocalSubmitter raft = leader.localSubmitter();

      CommandReply stale = raft.submit(write(staleTerm, batch)).get(30, TimeUnit.SECONDS);
      assertEquals(CommandReply.KindCase.REJECTED, stale.getKindCase(), stale.toString());
      assertTrue(
          stale.getRejected().contains("stale executor term " + staleTerm), stale.toString());
      CommandReply future = raft.submit(write(term + 1, batch)).get(30, TimeUnit.SECONDS);
      assertEquals(CommandReply.KindCase.REJECTED, future.getKindCase(), future.toString());
      CommandReply reserve =
          raft.submit(
                  Command.newBuilder()
                      .setReserve(ReserveIds.newBuilder().setTerm(staleTerm).setCount(10))
                      .build())
              .get(30, TimeUnit.SECONDS);
      assertEquals(CommandReply.KindCase.REJECTED, reserve.getKindCase(), reserve.toString());

      // every node applied the three entries, rejected all, and counted them
      for (ProcedureNode<Work.Env> n : cluster.running()) {
        String id = n.nodeId();
        await()
            .atMost(TestCluster.ELECTION_WAIT)
            .until(() -> n.rejectedWriteCount() == rejectedBefore.get(id) + 3);
        Map<Long, byte[]> table = n.stateMachine().table().copy();
        assertEquals(tablesBefore.get(id).keySet(), table.keySet(), "records of " + id);
        assertArrayEquals(tablesBefore.get(id).get(done), table.get(done), "record on " + id);
        assertEquals(maxIdBefore.get(id), n.stateMachine().table().maxProcId(), "max id " + id);
      }
      assertEquals(
          ProcedureState.SUCCESS,
          leader.getInfo(done).get(30, TimeUnit.SECONDS).orElseThrow().state());

      // the control: the same batch in the leader's own term is applied
      CommandReply current =
          raft.submit(
                  write(
                      term,
                      StoreBatch.builder().upsert(new StoreRecord(FOREIGN_ID, doneRecord)).build()))
              .get(30, TimeUnit.SECONDS);
      assertTrue(current.getWritten(), current.toString());
      assertNotNull(leader.stateMachine().table().get(FOREIGN_ID));
      assertNull(tablesBefore.get(leader.nodeId()).get(FOREIGN_ID));
    }
  }

  private static Command write(long term, StoreBatch batch) {
    return Command.newBuilder()
        .setWrite(
            StoreWrite.newBuilder()
                .setTerm(term)
                .addBatches(ByteString.copyFrom(batch.toProto().toByteArray())))
        .build();
  }
}
