package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.Fence;
import dev.baton.consensus.proto.MetadataWrite;
import dev.baton.consensus.proto.ReserveIds;
import dev.baton.consensus.proto.StoreWrite;
import dev.baton.consensus.proto.Submit;
import dev.baton.procedure.NonceKey;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureInfo;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.proto.ProcedureEnvelope;
import dev.baton.procedure.proto.ProcedureStateProto;
import dev.baton.procedure.proto.StoreBatchProto;
import dev.baton.procedure.proto.StoreRecordProto;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process outside the cluster that reaches its Raft port may submit and abort, nothing else: the
 * executor's own commands (store writes, metadata writes, fences, id reservations) are refused
 * before they reach the log, even with the current term, and the refusal names no term.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ForgedCommandTest {
  private static final long WAIT_SECONDS = 30;

  @TempDir Path dir;

  private static String refusal(ProcedureClient client, Command forged) {
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> client.send(forged).get(WAIT_SECONDS, TimeUnit.SECONDS));
    return String.valueOf(e.getCause().getMessage());
  }

  @Test
  void executorOnlyCommandsFromAClientAreRefusedAndChangeNothing() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      CountDownLatch gate = cluster.world.hold("victim:PREPARE");
      long victim =
          leader.submit(new Work("victim"), new NonceKey(5, 1)).get(WAIT_SECONDS, TimeUnit.SECONDS);
      assertTrue(cluster.world.reached.get("victim:PREPARE").await(WAIT_SECONDS, TimeUnit.SECONDS));
      ProcedureExecutor<Work.Env> executor = leader.executor().orElseThrow();
      long term = leader.term();

      ProcedureEnvelope forgedRecord =
          ProcedureEnvelope.newBuilder()
              .setProcId(victim)
              .setRootProcId(victim)
              .setType("Work")
              .setState(ProcedureStateProto.SUCCESS)
              .build();
      StoreBatchProto batch =
          StoreBatchProto.newBuilder()
              .addUpserts(
                  StoreRecordProto.newBuilder()
                      .setProcId(victim)
                      .setData(forgedRecord.toByteString()))
              .setMaxProcId(victim)
              .build();
      Command[] forged = {
        Command.newBuilder().setFence(Fence.newBuilder().setTerm(term)).build(),
        Command.newBuilder()
            .setWrite(StoreWrite.newBuilder().setTerm(term).addBatches(batch.toByteString()))
            .build(),
        Command.newBuilder().setMetadata(MetadataWrite.newBuilder().setTerm(term)).build(),
        Command.newBuilder().setReserve(ReserveIds.newBuilder().setTerm(term).setCount(5)).build()
      };
      try (ProcedureClient client = ProcedureClient.connect(cluster.peers, Work.registry())) {
        for (Command c : forged) {
          String message = refusal(client, c);
          assertTrue(message.contains("executor only"), c.getKindCase() + ": " + message);
          assertFalse(message.contains("term " + term), "names the term: " + message);
          assertFalse(message.contains("epoch"), "names an epoch: " + message);
        }
        // a submission of an unregistered type is refused too, before the log
        ProcedureEnvelope unknown =
            ProcedureEnvelope.newBuilder()
                .setParentProcId(-1)
                .setType("NoSuchType")
                .setState(ProcedureStateProto.INITIALIZING)
                .build();
        String message =
            refusal(
                client,
                Command.newBuilder()
                    .setSubmit(Submit.newBuilder().addEnvelopes(unknown.toByteString()))
                    .build());
        assertTrue(message.contains("NoSuchType"), message);

        // what a client may do still works
        long legit = client.submit(new Work("legit"), new NonceKey(5, 2));
        assertNotEquals(victim, legit);
        assertEquals(ProcedureState.SUCCESS, client.await(legit, Duration.ofSeconds(30)).state());
      }

      ProcedureInfo stillRunning = leader.getInfo(victim).get().orElseThrow();
      assertFalse(stillRunning.finished(), "the forged record landed: " + stillRunning);
      assertSame(
          executor, leader.executor().orElseThrow(), "a forged fence restarted the executor");
      gate.countDown();
      Awaitility.await()
          .atMost(Duration.ofSeconds(WAIT_SECONDS))
          .until(
              () ->
                  leader
                      .getInfo(victim)
                      .get()
                      .map(i -> i.state() == ProcedureState.SUCCESS)
                      .orElse(false));
    }
  }
}
