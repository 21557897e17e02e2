package dev.baton.confignode.datanode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.datanode.DataNodeRequest.CreateRegion;
import dev.baton.confignode.datanode.DataNodeRequest.DeleteRegion;
import dev.baton.confignode.datanode.DataNodeRequest.InvalidateCache;
import dev.baton.confignode.datanode.DataNodeRequest.Ping;
import dev.baton.confignode.datanode.DataNodeRequest.SetRegionRole;
import dev.baton.confignode.datanode.DataNodeRequest.SyncRegion;
import dev.baton.confignode.http.ErrorReply;
import java.net.HttpURLConnection;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The DataNode's decisions, without HTTP, threads or files. */
@Timeout(10)
class DataNodeCoreTest {
  private static final int ID = 3;
  private static final long NOW = 1_000;
  private static final String DB = "root.sg1";
  private static final String CALLER = "cn1";

  private final DataNodeCore core = new DataNodeCore(ID, 100, 100);

  /** Decides and applies like the server does, minus the disk. */
  private DataNodeCore.Decision run(DataNodeRequest request) {
    DataNodeCore.Decision decision = core.decide(request, CALLER, NOW);
    long seq = core.seq();
    for (Change change : decision.changes()) {
      core.apply(new JournalLine(++seq, change));
    }
    return decision;
  }

  private static CreateRegion create(long term, long procId, String step, int region) {
    return new CreateRegion(term, procId, step, region, DB, RegionKind.DATA, null);
  }

  private DataNodeState state() {
    return core.view(new FaultState(0, 0, false, 0, 0));
  }

  @Test
  void staleTermIsRejectedRecordedAndNotApplied() {
    run(create(5, 1, "A#1", 10));
    DataNodeCore.Decision stale = run(create(4, 2, "A#1", 11));

    assertEquals(HttpURLConnection.HTTP_CONFLICT, stale.status());
    assertEquals(DataNodeErrors.STALE_TERM, ((ErrorReply) stale.body()).error());
    DataNodeState s = state();
    assertTrue(s.region(11).isEmpty(), "a stale command must not apply");
    assertEquals(5, s.highestTerm());
    assertEquals(
        List.of(new RejectedCommand(2, "A#1", 4, 5, "create_region", NOW, CALLER)), s.rejected());
    assertEquals(1, s.counts().staleRejected());
    assertEquals(1, s.ledger().size());
  }

  @Test
  void higherTermIsRaisedBeforeTheCommandApplies() {
    run(new Ping(2, 1, "P#0"));
    DataNodeCore.Decision raised = run(create(7, 2, "A#1", 10));

    assertInstanceOf(Change.TermRaised.class, raised.changes().get(0));
    assertInstanceOf(Change.Applied.class, raised.changes().get(1));
    assertEquals(7, ((DataNodeReply) raised.body()).highestTerm());
    assertEquals(7, state().highestTerm());
    // the old term is now stale
    assertEquals(
        DataNodeErrors.STALE_TERM, ((ErrorReply) run(new Ping(2, 3, "P#0")).body()).error());
  }

  @Test
  void sameKeyTwiceAppliesOnceAndCountsADuplicate() {
    DataNodeReply first = (DataNodeReply) run(new InvalidateCache(1, 9, "INVALIDATE#1", DB)).body();
    DataNodeCore.Decision again = run(new InvalidateCache(1, 9, "INVALIDATE#1", DB));

    assertEquals(HttpURLConnection.HTTP_OK, again.status());
    assertEquals(first.asDuplicate(), again.body());
    DataNodeState s = state();
    assertEquals(1, s.invalidations().size(), "the invalidation must be applied once");
    assertEquals(1, s.ledger().size());
    assertEquals(1, s.counts().duplicates());
    assertEquals(1, s.counts().applied());
    assertEquals(
        List.of(new DuplicateCommand(9, "INVALIDATE#1", 1, "invalidate_cache", NOW)),
        s.duplicates());
  }

  @Test
  void retryFromANewerLeaderIsADuplicateAndRaisesTheTerm() {
    DataNodeReply first = (DataNodeReply) run(create(1, 4, "CREATE#2", 10)).body();
    DataNodeCore.Decision retry = run(create(2, 4, "CREATE#2", 10));

    assertEquals(first.asDuplicate(), retry.body());
    assertEquals(2, state().highestTerm());
    assertEquals(1, state().counts().applied());
  }

  @Test
  void duplicateWithAStaleTermIsRejectedNotAnswered() {
    run(create(3, 4, "CREATE#2", 10));
    run(new Ping(4, 5, "P"));
    DataNodeCore.Decision stale = run(create(3, 4, "CREATE#2", 10));

    assertEquals(DataNodeErrors.STALE_TERM, ((ErrorReply) stale.body()).error());
    assertEquals(0, state().counts().duplicates());
  }

  @Test
  void reusedKeyWithOtherArgumentsIsRefusedAndNotApplied() {
    run(create(1, 4, "CREATE#2", 10));
    DataNodeCore.Decision reused = run(create(1, 4, "CREATE#2", 11));

    assertEquals(HttpURLConnection.HTTP_CONFLICT, reused.status());
    assertEquals(DataNodeErrors.IDEMPOTENCY_CONFLICT, ((ErrorReply) reused.body()).error());
    assertTrue(state().region(11).isEmpty());
    assertEquals(
        DataNodeErrors.IDEMPOTENCY_CONFLICT,
        ((ErrorReply) run(new DeleteRegion(1, 4, "CREATE#2", 10)).body()).error());
    assertTrue(state().region(10).isPresent());
  }

  @Test
  void defaultRoleAndExplicitFollowerAreTheSameArguments() {
    run(create(1, 4, "CREATE#2", 10));
    DataNodeCore.Decision retry =
        run(new CreateRegion(1, 4, "CREATE#2", 10, DB, RegionKind.DATA, RegionRole.FOLLOWER));
    assertTrue(((DataNodeReply) retry.body()).duplicate());
  }

  @Test
  void creatingAnExistingReplicaOfTheSameDatabaseSucceedsWithoutChange() {
    run(create(1, 1, "A", 10));
    DataNodeReply again = (DataNodeReply) run(create(1, 2, "B", 10)).body();

    assertFalse(again.duplicate());
    assertFalse(again.changed());
    assertEquals(DB, again.region().database());
    assertEquals(2, state().counts().applied());
  }

  @Test
  void creatingAnExistingReplicaForAnotherDatabaseConflicts() {
    run(create(1, 1, "A", 10));
    DataNodeCore.Decision other =
        run(new CreateRegion(1, 2, "B", 10, "root.other", RegionKind.DATA, null));

    assertEquals(DataNodeErrors.REGION_CONFLICT, ((ErrorReply) other.body()).error());
    assertEquals(DB, state().region(10).orElseThrow().database());
    DataNodeCore.Decision otherKind =
        run(new CreateRegion(1, 3, "C", 10, DB, RegionKind.SCHEMA, null));
    assertEquals(DataNodeErrors.REGION_CONFLICT, ((ErrorReply) otherKind.body()).error());
  }

  @Test
  void deletingAMissingReplicaSucceedsWithoutChange() {
    DataNodeReply reply = (DataNodeReply) run(new DeleteRegion(1, 1, "D", 10)).body();
    assertFalse(reply.changed());
    assertEquals(null, reply.region());

    run(create(1, 2, "A", 10));
    DataNodeReply deleted = (DataNodeReply) run(new DeleteRegion(1, 3, "D", 10)).body();
    assertTrue(deleted.changed());
    assertEquals(10, deleted.region().regionId());
    assertTrue(state().regions().isEmpty());
  }

  @Test
  void roleAndSyncNeedTheRegionAndARefusalIsJudgedAfreshOnRetry() {
    DataNodeCore.Decision missing = run(new SetRegionRole(1, 1, "SWITCH#1", 10, RegionRole.LEADER));
    assertEquals(DataNodeErrors.REGION_NOT_FOUND, ((ErrorReply) missing.body()).error());
    assertEquals(
        DataNodeErrors.REGION_NOT_FOUND,
        ((ErrorReply) run(new SyncRegion(1, 1, "SYNC#1", 10, 5)).body()).error());
    assertTrue(state().ledger().isEmpty(), "a refusal is not kept in the ledger");

    run(create(1, 2, "A", 10));
    DataNodeReply retried =
        (DataNodeReply) run(new SetRegionRole(1, 1, "SWITCH#1", 10, RegionRole.LEADER)).body();
    assertFalse(retried.duplicate());
    assertTrue(retried.changed());
    assertEquals(RegionRole.LEADER, state().region(10).orElseThrow().role());
  }

  @Test
  void syncCatchesUpAndNeverGoesBack() {
    run(create(1, 1, "A", 10));
    DataNodeReply up = (DataNodeReply) run(new SyncRegion(1, 2, "SYNC#1", 10, 42)).body();
    DataNodeReply back = (DataNodeReply) run(new SyncRegion(1, 3, "SYNC#2", 10, 7)).body();

    assertTrue(up.changed());
    assertFalse(back.changed());
    assertEquals(42, state().region(10).orElseThrow().dataVersion());
  }

  @Test
  void ledgerAndLogsKeepTheNewestEntriesUpToTheirCapacity() {
    DataNodeCore small = new DataNodeCore(ID, 2, 2);
    long seq = 0;
    for (int i = 0; i < 5; i++) {
      for (Change c : small.decide(new InvalidateCache(1, i, "S", DB), CALLER, NOW).changes()) {
        small.apply(new JournalLine(++seq, c));
      }
    }
    DataNodeState s = small.view(new FaultState(0, 0, false, 0, 0));
    assertEquals(List.of(3L, 4L), s.ledger().stream().map(LedgerEntry::procId).toList());
    assertEquals(
        List.of(3L, 4L), s.invalidations().stream().map(CacheInvalidation::procId).toList());
    assertEquals(5, s.counts().applied());
    assertEquals(5, s.counts().invalidations());
  }

  @Test
  void restoredStateEqualsTheLiveOne() {
    run(create(2, 1, "A", 10));
    run(new SetRegionRole(2, 2, "B", 10, RegionRole.LEADER));
    run(new InvalidateCache(3, 3, "C", DB));
    run(create(1, 4, "D", 11));
    run(create(3, 1, "A", 10));
    run(new DeleteRegion(3, 5, "UNDO_E", 12, 9L));
    run(new CreateRegion(3, 5, "E", 12, DB, RegionKind.DATA, null, 8L));

    DataNodeCore restored = DataNodeCore.restore(core.durable(), 100, 100);
    assertEquals(core.durable(), restored.durable());
    assertEquals(state(), restored.view(new FaultState(0, 0, false, 0, 0)));
    assertEquals(1, state().superseded().size());
    // the restored order still refuses what came before procedure 5's newest command
    DataNodeCore.Decision again =
        restored.decide(
            new CreateRegion(3, 5, "E2", 12, DB, RegionKind.DATA, null, 7L), CALLER, NOW);
    assertEquals(DataNodeErrors.SUPERSEDED, ((ErrorReply) again.body()).error());
  }

  @Test
  void linesOutOfSequenceAreRefused() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> core.apply(new JournalLine(2, new Change.TermRaised(1))));
    assertTrue(e.getMessage().contains("expected journal line 1"), e.getMessage());
  }

  @Test
  void invalidRequestsAreRefusedAtConstruction() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> create(-1, 1, "A", 10));
    assertTrue(e.getMessage().contains("'term'"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> create(1, 1, " ", 10));
    assertThrows(IllegalArgumentException.class, () -> create(1, 1, "A", -3));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new CreateRegion(
                1, 1, "A", 1, "x".repeat(Checks.MAX_NAME_LENGTH + 1), RegionKind.DATA, null));
  }
}
