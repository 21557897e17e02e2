package dev.baton.confignode.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A DataNode over real HTTP on 127.0.0.1, through {@link DataNodeClient}. */
@Timeout(60)
class DataNodeServerTest {
  private static final String DB = "root.sg";

  @TempDir Path dir;

  private final List<DataNodeServer> servers = new ArrayList<>();

  private DataNodeServer start(DataNodeConfig config) throws IOException {
    DataNodeServer server = new DataNodeServer(config).start();
    servers.add(server);
    return server;
  }

  private DataNodeServer start() throws IOException {
    return start(DataNodeConfig.of(1, dir));
  }

  @AfterEach
  void closeServers() {
    servers.forEach(DataNodeServer::close);
  }

  private static CommandContext ctx(long term, long procId, String step) {
    return new CommandContext(term, procId, step);
  }

  @Test
  void lowerTermIsRejectedWith409RecordedAndNotApplied() throws Exception {
    DataNodeClient client = new DataNodeClient(start().address());
    client.createRegion(ctx(5, 1, "CREATE_REGIONS#1"), 10, DB, RegionKind.DATA);

    DataNodeException e =
        assertThrows(
            DataNodeException.class,
            () -> client.createRegion(ctx(4, 2, "CREATE_REGIONS#1"), 11, DB, RegionKind.DATA));

    assertTrue(e.staleTerm());
    assertEquals(HttpURLConnection.HTTP_CONFLICT, e.status());
    assertFalse(e.retryable());
    DataNodeState state = client.state();
    assertTrue(state.region(11).isEmpty(), "the stale command must not apply");
    assertEquals(5, state.highestTerm());
    assertEquals(1, state.rejected().size());
    RejectedCommand rejected = state.rejected().get(0);
    assertEquals(4, rejected.term());
    assertEquals(5, rejected.highestTerm());
    assertEquals("create_region", rejected.command());
    assertTrue(
        state.ledger().stream().allMatch(entry -> entry.term() >= 5),
        "no ledger entry may carry a stale term");
  }

  @Test
  void higherTermRaisesTheRecordedTerm() throws Exception {
    DataNodeClient client = new DataNodeClient(start().address());
    client.ping(ctx(2, 1, "PING"));
    DataNodeReply reply = client.ping(ctx(9, 2, "PING"));

    assertEquals(9, reply.highestTerm());
    assertEquals(9, client.state().highestTerm());
    assertThrows(DataNodeException.class, () -> client.ping(ctx(8, 3, "PING")));
  }

  @Test
  void sameKeyTwiceIsAppliedOnceAndCountedAsADuplicate() throws Exception {
    DataNodeClient client = new DataNodeClient(start().address());
    DataNodeReply first = client.invalidateCache(ctx(1, 7, "INVALIDATE_CACHE#3"), DB);
    DataNodeReply second = client.invalidateCache(ctx(1, 7, "INVALIDATE_CACHE#3"), DB);

    assertFalse(first.duplicate());
    assertTrue(second.duplicate());
    assertEquals(first.highestTerm(), second.highestTerm());
    DataNodeState state = client.state();
    assertEquals(1, state.invalidations().size(), "applied once");
    assertEquals(1, state.ledger().size());
    assertEquals(1, state.counts().duplicates());
    assertEquals(1, state.duplicates().size());
    assertEquals(7, state.duplicates().get(0).procId());
  }

  @Test
  void everyCommandRoundTrips() throws Exception {
    DataNodeServer server = start();
    DataNodeClient client = new DataNodeClient(server.address());

    DataNodeReply created =
        client.createRegion(ctx(1, 1, "C#1"), 10, DB, RegionKind.SCHEMA, RegionRole.LEADER);
    assertEquals(
        new RegionReplica(10, DB, RegionKind.SCHEMA, RegionRole.LEADER, 0), created.region());
    assertEquals(server.id(), created.dataNodeId());
    assertEquals("create_region", created.command());

    DataNodeReply follower = client.setRegionRole(ctx(1, 1, "ROLE#2"), 10, RegionRole.FOLLOWER);
    assertTrue(follower.changed());
    assertEquals(RegionRole.FOLLOWER, follower.region().role());

    DataNodeReply synced = client.syncRegion(ctx(1, 1, "SYNC#3"), 10, 17);
    assertEquals(17, synced.region().dataVersion());

    assertTrue(client.invalidateCache(ctx(1, 1, "INV#4"), DB).changed());

    DataNodeReply deleted = client.deleteRegion(ctx(1, 1, "DEL#5"), 10);
    assertTrue(deleted.changed());
    assertFalse(client.deleteRegion(ctx(1, 1, "DEL#6"), 10).changed());

    DataNodeException missing =
        assertThrows(DataNodeException.class, () -> client.syncRegion(ctx(1, 1, "SYNC#7"), 10, 18));
    assertEquals(DataNodeErrors.REGION_NOT_FOUND, missing.error());
    assertFalse(missing.staleTerm());

    DataNodeState state = client.state();
    assertEquals(server.state(), state);
    assertEquals(6, state.counts().applied());
    assertTrue(state.regions().isEmpty());
    assertEquals(
        List.of(
            "create_region",
            "set_region_role",
            "sync_region",
            "invalidate_cache",
            "delete_region",
            "delete_region"),
        state.ledger().stream().map(LedgerEntry::command).toList());
  }

  @Test
  void restartedDataNodeOnTheSameDirectoryHasEverything() throws Exception {
    DataNodeServer first = start();
    DataNodeClient client = new DataNodeClient(first.address());
    DataNodeReply created = client.createRegion(ctx(3, 1, "C#1"), 10, DB, RegionKind.DATA);
    client.createRegion(ctx(3, 1, "C#2"), 11, DB, RegionKind.SCHEMA);
    client.setRegionRole(ctx(4, 2, "LEADER#1"), 10, RegionRole.LEADER);
    client.invalidateCache(ctx(4, 3, "INV#1"), DB);
    client.createRegion(ctx(4, 1, "C#1"), 10, DB, RegionKind.DATA);
    assertThrows(DataNodeException.class, () -> client.ping(ctx(2, 9, "OLD")));
    DataNodeState before = client.state();
    first.close();

    DataNodeServer second = start();
    DataNodeClient again = new DataNodeClient(second.address());
    DataNodeState after = again.state();

    assertEquals(before.regions(), after.regions());
    assertEquals(4, after.highestTerm());
    assertEquals(before.ledger(), after.ledger());
    assertEquals(before.rejected(), after.rejected());
    assertEquals(before.duplicates(), after.duplicates());
    assertEquals(before.invalidations(), after.invalidations());
    assertEquals(before.counts(), after.counts());
    // the ledger survived: the first answer comes back, nothing is applied again
    DataNodeReply retried = again.createRegion(ctx(4, 1, "C#1"), 10, DB, RegionKind.DATA);
    assertEquals(created.asDuplicate(), retried);
    assertEquals(before.counts().applied(), again.state().counts().applied());
    assertTrue(
        assertThrows(DataNodeException.class, () -> again.ping(ctx(3, 9, "OLD"))).staleTerm());
  }

  @Test
  void restartAfterSnapshotsRecoversEverything() throws Exception {
    DataNodeConfig config = DataNodeConfig.of(1, dir).withSnapshotEvery(5);
    DataNodeServer first = start(config);
    DataNodeClient client = new DataNodeClient(first.address());
    for (int i = 0; i < 23; i++) {
      client.createRegion(ctx(1 + i / 10, i, "C#" + i), i, DB, RegionKind.DATA);
    }
    DataNodeState before = client.state();
    first.close();
    assertTrue(
        Files.readAllLines(dir.resolve(DataNodeJournal.JOURNAL_FILE)).size() < 5,
        "snapshots must keep the journal short");

    DataNodeState after = new DataNodeClient(start(config).address()).state();
    assertEquals(before.regions(), after.regions());
    assertEquals(before.ledger(), after.ledger());
    assertEquals(before.counts(), after.counts());
    assertEquals(3, after.highestTerm());
  }

  @Test
  void portZeroPicksAFreePortPerServer(@TempDir Path other) throws Exception {
    DataNodeServer a = start();
    DataNodeServer b = start(DataNodeConfig.of(2, other));
    assertNotEquals(0, a.port());
    assertNotEquals(a.port(), b.port());
    assertEquals(2, new DataNodeClient(b.address()).ping(ctx(1, 1, "P")).dataNodeId());
  }

  @Test
  void aSecondServerOnADirectoryInUseFailsToStart() throws Exception {
    start();
    IOException e =
        assertThrows(
            IOException.class, () -> new DataNodeServer(DataNodeConfig.of(1, dir)).start());
    assertTrue(e.getMessage().contains("in use"), e.getMessage());
  }

  @Test
  void unreachableDataNodeIsARetryableNoAnswer() throws Exception {
    DataNodeServer server = start();
    DataNodeClient client = new DataNodeClient(server.address());
    server.close();

    DataNodeException e = assertThrows(DataNodeException.class, () -> client.ping(ctx(1, 1, "P")));
    assertTrue(e.noAnswer());
    assertTrue(e.retryable());
    assertEquals(DataNodeErrors.UNREACHABLE, e.error());
    assertTrue(e.getMessage().contains(server.address()), e.getMessage());
  }

  @Test
  void clientRefusesABadAddress() {
    assertThrows(IllegalArgumentException.class, () -> new DataNodeClient("localhost"));
    assertThrows(IllegalArgumentException.class, () -> new DataNodeClient("localhost:99999"));
  }
}
