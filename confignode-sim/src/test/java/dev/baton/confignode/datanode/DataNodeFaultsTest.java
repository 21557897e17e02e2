package dev.baton.confignode.datanode;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.HttpURLConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Injected faults: failures, latency, stalls, and reset; a stalled command overtaken by a later one
 * of its procedure is refused when released, also after a restart.
 */
@Timeout(60)
class DataNodeFaultsTest {
  private static final String DB = "root.faults";
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Duration IMPATIENT = Duration.ofMillis(300);
  private static final long ORDER_TERM = 3;
  private static final long PROC = 41;
  private static final int REGION = 5;

  @TempDir Path dir;

  private DataNodeServer server;
  private DataNodeClient client;
  private final ExecutorService pool = Executors.newCachedThreadPool();

  /** DataNode 1 on {@code dir} with its fault routes on. */
  private DataNodeConfig withFaults() {
    return DataNodeConfig.of(1, dir).withGuard(DataNodeGuard.PLAIN.withFaults(true));
  }

  @BeforeEach
  void start() throws Exception {
    server = new DataNodeServer(withFaults()).start();
    client = new DataNodeClient(server.address());
  }

  @AfterEach
  void stop() {
    server.close();
    pool.shutdownNow();
  }

  private static CommandContext ctx(long procId, String step) {
    return new CommandContext(1, procId, step);
  }

  private CompletableFuture<DataNodeReply> createInBackground(int regionId, DataNodeClient via) {
    return createInBackground(ctx(regionId, "C#" + regionId), regionId, via);
  }

  private CompletableFuture<DataNodeReply> createInBackground(
      CommandContext ctx, int regionId, DataNodeClient via) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return via.createRegion(ctx, regionId, DB, RegionKind.DATA);
          } catch (DataNodeException e) {
            throw new CompletionException(e);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompletionException(e);
          }
        },
        pool);
  }

  @Test
  void failNextFailsExactlyThatManyCommandsWithoutApplyingThem() throws Exception {
    assertEquals(2, client.failNext(2).failNext());

    for (int i = 0; i < 2; i++) {
      int region = i;
      DataNodeException e =
          assertThrows(
              DataNodeException.class,
              () -> client.createRegion(ctx(region, "C"), region, DB, RegionKind.DATA));
      assertEquals(HttpURLConnection.HTTP_UNAVAILABLE, e.status());
      assertEquals(DataNodeErrors.INJECTED_FAILURE, e.error());
      assertTrue(e.retryable());
    }
    DataNodeState state = client.state();
    assertTrue(state.regions().isEmpty(), "failed commands must not apply");
    assertTrue(state.ledger().isEmpty());
    assertEquals(2, state.faults().injectedFailures());
    assertEquals(0, state.faults().failNext());

    assertTrue(client.createRegion(ctx(0, "C"), 0, DB, RegionKind.DATA).changed());
  }

  @Test
  void latencyDelaysEveryCommandUntilReset() throws Exception {
    Duration latency = Duration.ofMillis(400);
    assertEquals(latency.toMillis(), client.addLatency(latency).latencyMs());

    long start = System.nanoTime();
    client.ping(ctx(1, "P"));
    long elapsed = System.nanoTime() - start;
    assertTrue(
        elapsed >= latency.toNanos(),
        "a ping took " + TimeUnit.NANOSECONDS.toMillis(elapsed) + " ms, less than the latency");

    FaultState reset = client.resetFaults();
    assertEquals(0, reset.latencyMs());
    assertEquals(0, client.state().faults().latencyMs());
  }

  @Test
  void stalledCommandWaitsUntilReleasedThenApplies() throws Exception {
    assertTrue(client.stall().stalled());
    CompletableFuture<DataNodeReply> pending = createInBackground(10, client);

    await().atMost(WAIT).until(() -> client.state().faults().waiting() == 1);
    assertFalse(pending.isDone(), "a stalled command must not complete");
    assertTrue(client.state().region(10).isEmpty(), "a stalled command must not apply yet");

    FaultState released = client.releaseStall();
    assertFalse(released.stalled());
    DataNodeReply reply = pending.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertTrue(reply.changed());
    assertTrue(client.state().region(10).isPresent());
    assertEquals(0, client.state().faults().waiting());
  }

  @Test
  void stallOfOneStepHoldsOnlyThatStepsCommands() throws Exception {
    FaultState set = client.stallStep("C#12");
    assertTrue(set.stalled());
    assertEquals("C#12", set.stallStep());
    CompletableFuture<DataNodeReply> held = createInBackground(12, client);
    await().atMost(WAIT).until(() -> client.state().faults().waiting() == 1);

    assertTrue(
        createInBackground(13, client).get(WAIT.toSeconds(), TimeUnit.SECONDS).changed(),
        "a command of another step goes through");
    assertFalse(held.isDone(), "the command of the stalled step must wait");

    client.stallStep("C#14"); // moving the filter lets the held command go
    assertTrue(held.get(WAIT.toSeconds(), TimeUnit.SECONDS).changed());
    FaultState reset = client.resetFaults();
    assertFalse(reset.stalled());
    assertEquals(null, reset.stallStep());
  }

  @Test
  void resetAlsoReleasesAStall() throws Exception {
    client.stall();
    CompletableFuture<DataNodeReply> pending = createInBackground(11, client);
    await().atMost(WAIT).until(() -> client.state().faults().waiting() == 1);
    assertFalse(pending.isDone());

    client.resetFaults();
    assertTrue(pending.get(WAIT.toSeconds(), TimeUnit.SECONDS).changed());
  }

  @Test
  void answerLostToATimeoutIsRecoveredByARetryFromTheLedger() throws Exception {
    DataNodeClient impatient = DataNodeConnector.plain().client(server.address(), IMPATIENT);
    client.stall();
    CompletableFuture<DataNodeReply> pending = createInBackground(12, impatient);

    ExecutionException timedOut =
        assertThrows(
            ExecutionException.class, () -> pending.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    DataNodeException e = (DataNodeException) timedOut.getCause();
    assertEquals(DataNodeErrors.TIMEOUT, e.error());
    assertTrue(e.retryable());

    // the command reached the DataNode and applies once released, though nobody hears the answer
    client.releaseStall();
    await().atMost(WAIT).until(() -> client.state().region(12).isPresent());
    DataNodeReply retry = client.createRegion(ctx(12, "C#12"), 12, DB, RegionKind.DATA);
    assertTrue(retry.duplicate());
    assertTrue(retry.changed(), "the retry reports what the first delivery did");
    assertEquals(1, client.state().counts().applied());
  }

  @Test
  void closingADataNodeAnswersStalledCommandsAsShuttingDown() throws Exception {
    client.stall();
    CompletableFuture<DataNodeReply> pending = createInBackground(13, client);
    await().atMost(WAIT).until(() -> client.state().faults().waiting() == 1);

    server.close();
    ExecutionException failed =
        assertThrows(
            ExecutionException.class, () -> pending.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    DataNodeException e = (DataNodeException) failed.getCause();
    assertTrue(e.retryable(), e.getMessage());

    DataNodeServer restarted = new DataNodeServer(withFaults()).start();
    try {
      DataNodeState state = new DataNodeClient(restarted.address()).state();
      assertTrue(state.region(13).isEmpty(), "a command refused at shutdown must not apply");
      assertFalse(state.faults().stalled(), "faults do not survive a restart");
    } finally {
      restarted.close();
    }
  }

  @Test
  void faultSettingsAreValidated() {
    assertThrows(IllegalArgumentException.class, () -> FaultSettings.failNextCommands(-1));
    assertThrows(
        IllegalArgumentException.class,
        () -> FaultSettings.addLatency(FaultSettings.MAX_LATENCY_MS + 1));
  }

  private static CommandContext ordered(String step, long seq) {
    return new CommandContext(ORDER_TERM, PROC, step, seq);
  }

  // A command the ConfigNode gave up on (its call timed out while the DataNode held it) must not
  // land after a later command of its procedure, e.g. the undo of its step in the same term.

  /** ADD_PEER sent with a short timeout while the DataNode stalls that step; it times out. */
  private void addPeerTimesOutWhileStalled() throws Exception {
    client.stallStep("ADD_PEER");
    DataNodeClient impatient = DataNodeConnector.plain().client(server.address(), IMPATIENT);
    CompletableFuture<DataNodeReply> pending =
        createInBackground(ordered("ADD_PEER", 1), REGION, impatient);
    ExecutionException timedOut =
        assertThrows(
            ExecutionException.class, () -> pending.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    assertEquals(DataNodeErrors.TIMEOUT, ((DataNodeException) timedOut.getCause()).error());
    assertEquals(1, client.state().faults().waiting(), "ADD_PEER is held by the stall");
  }

  @Test
  void addPeerReleasedAfterItsUndoIsRefusedAndRecorded() throws Exception {
    addPeerTimesOutWhileStalled();
    DataNodeReply undo = client.deleteRegion(ordered("UNDO_ADD_PEER", 2), REGION);
    assertFalse(undo.changed(), "nothing to undo yet");

    client.releaseStall();
    await().atMost(WAIT).until(() -> client.state().counts().superseded() == 1);

    DataNodeState s = client.state();
    assertTrue(s.region(REGION).isEmpty(), "the overtaken ADD_PEER must not create the replica");
    assertEquals(
        List.of("UNDO_ADD_PEER"), s.ledger().stream().map(LedgerEntry::step).toList(), "ledger");
    SupersededCommand refused = s.superseded().get(0);
    assertEquals(PROC, refused.procId());
    assertEquals("ADD_PEER", refused.step());
    assertEquals(1, refused.seq());
    assertEquals("UNDO_ADD_PEER", refused.newerStep());
    assertEquals(2, refused.newerSeq());
    assertEquals(1, s.counts().applied());
  }

  @Test
  void theOrderSurvivesARestartAndOtherProceduresAreNotAffected() throws Exception {
    client.deleteRegion(ordered("UNDO_ADD_PEER", 2), REGION);
    server.close();
    server = new DataNodeServer(withFaults()).start();
    client = new DataNodeClient(server.address());

    DataNodeException e =
        assertThrows(
            DataNodeException.class,
            () -> client.createRegion(ordered("ADD_PEER", 1), REGION, DB, RegionKind.DATA));
    assertEquals(HttpURLConnection.HTTP_CONFLICT, e.status());
    assertEquals(DataNodeErrors.SUPERSEDED, e.error());
    assertFalse(e.retryable());
    assertTrue(e.getMessage().contains("UNDO_ADD_PEER"), e.getMessage());
    assertTrue(client.state().region(REGION).isEmpty());

    // another procedure's command with a lower seq, and this one's next command, apply
    assertTrue(
        client
            .createRegion(
                new CommandContext(ORDER_TERM, PROC + 1, "ADD_PEER", 1), 6, DB, RegionKind.DATA)
            .changed());
    assertTrue(client.createRegion(ordered("RETRY", 3), REGION, DB, RegionKind.DATA).changed());
  }

  @Test
  void aRepeatIsAnsweredFromTheLedgerAndANewerTermComesAfterAnySeq() throws Exception {
    client.ping(ordered("A", 1));
    client.ping(ordered("B", 2));
    assertTrue(client.ping(ordered("A", 1)).duplicate(), "an applied command is answered again");

    DataNodeReply next = client.ping(new CommandContext(ORDER_TERM + 1, PROC, "C", 1));
    assertFalse(next.duplicate());
    assertEquals(ORDER_TERM + 1, next.highestTerm());
    assertEquals(0, client.state().counts().superseded());
    assertEquals(3, client.state().counts().applied());
  }
}
