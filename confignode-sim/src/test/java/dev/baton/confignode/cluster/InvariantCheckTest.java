package dev.baton.confignode.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.datanode.DataNodeCounts;
import dev.baton.confignode.datanode.DataNodeState;
import dev.baton.confignode.datanode.FaultState;
import dev.baton.confignode.datanode.LedgerEntry;
import dev.baton.confignode.datanode.RegionKind;
import dev.baton.confignode.datanode.RegionReplica;
import dev.baton.confignode.datanode.RegionRole;
import dev.baton.confignode.http.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The invariant check on hand-made cluster views: each broken invariant is reported. */
@Timeout(10)
class InvariantCheckTest {
  private static final FaultState NO_FAULTS = new FaultState(0, 0, false, 0, 0);
  private static final DataNodeCounts COUNTS = new DataNodeCounts(0, 0, 0, 0, 0);

  private static JsonNode json(String text) throws Exception {
    return Json.LENIENT.readTree(text.replace('\'', '"'));
  }

  private static JsonNode procedure(long id, long parent, String type, String state)
      throws Exception {
    boolean finished = !state.equals("RUNNABLE") && !state.equals("WAITING");
    return json(
        String.format(
            "{'procId':%d,'parentProcId':%d,'type':'%s','state':'%s','finished':%b,'step':null}",
            id, parent, type, state, finished));
  }

  private static JsonNode list(JsonNode... items) {
    var a = Json.LENIENT.createArrayNode();
    for (JsonNode i : items) {
      a.add(i);
    }
    return a;
  }

  /** Region 7 of db1 on DataNodes 1 and 2. */
  private static JsonNode metadata() throws Exception {
    return json("{'regions':[{'id':7,'database':'db1','kind':'DATA','replicas':[1,2]}]}");
  }

  private static RegionReplica region7() {
    return new RegionReplica(7, "db1", RegionKind.DATA, RegionRole.FOLLOWER, 0);
  }

  private static LedgerEntry entry(long procId, String step, long term, long time) {
    return entry(procId, step, term, 0, time);
  }

  private static LedgerEntry entry(long procId, String step, long term, long seq, long time) {
    return new LedgerEntry(procId, step, term, seq, "create", null, null, time, "cn1");
  }

  private static DataNodeState dataNode(
      int id, List<RegionReplica> regions, LedgerEntry... ledger) {
    return new DataNodeState(
        id,
        0,
        regions,
        List.of(ledger),
        List.of(),
        List.of(),
        List.of(),
        List.of(),
        COUNTS,
        NO_FAULTS);
  }

  private static InvariantCheck.Result check(
      JsonNode procedures, List<DataNodeState> dataNodes, Map<Long, Long> acked) throws Exception {
    return InvariantCheck.evaluate(procedures, metadata(), dataNodes, acked, true);
  }

  @Test
  void aConsistentClusterPasses() throws Exception {
    InvariantCheck.Result r =
        check(
            list(procedure(1, -1, "MigrateRegion", "SUCCESS")),
            List.of(
                dataNode(1, List.of(region7()), entry(1, "ADD_PEER", 1, 10), entry(1, "X", 2, 20)),
                dataNode(2, List.of(region7()))),
            Map.of(100L, 1L));
    assertTrue(r.ok(), r::describe);
    assertEquals(Map.of("MigrateRegion SUCCESS", 1), r.outcomes());
  }

  @Test
  void eachBrokenInvariantIsReported() throws Exception {
    InvariantCheck.Result r =
        check(
            list(
                procedure(1, -1, "MigrateRegion", "WAITING"),
                procedure(2, -1, "Noop", "SUCCESS"),
                procedure(3, -1, "Noop", "SUCCESS")),
            List.of(
                // DataNode 1: a stale term accepted; region 7 missing
                dataNode(1, List.of(), entry(1, "A", 3, 10), entry(2, "B", 2, 20)),
                // DataNode 2: an extra region; procedure 1 ran a step of term 1 after term 3
                dataNode(
                    2,
                    List.of(
                        region7(),
                        new RegionReplica(8, "db1", RegionKind.DATA, RegionRole.LEADER, 0)),
                    entry(1, "C", 1, 30))),
            Map.of(100L, 1L, 101L, 9L));
    String all = String.join("\n", r.violations());
    for (String expected :
        List.of(
            "procedure 1 (MigrateRegion) is not terminal",
            "acknowledged procedure 9 (nonce 101) is lost",
            "3 root procedures for 2 nonces",
            "DataNode 1 accepted create (procedure 2, step B) of term 2 after term 3",
            "the metadata places region 7 on DataNode 1, which does not host it",
            "DataNode 2 hosts region 8, the metadata does not",
            "procedure 1: step C of term 1 was accepted after step A of term 3")) {
      assertTrue(all.contains(expected), () -> "missing: " + expected + "\nin:\n" + all);
    }
    assertEquals(7, r.violations().size(), all);
  }

  @Test
  void aCommandAppliedAfterALaterOneOfItsProcedureIsReported() throws Exception {
    // DataNode 3 (no region in the metadata) applied ADD_PEER (seq 4) after UNDO_ADD_PEER (seq 5)
    // of the same term; another procedure's older command in between is no violation
    InvariantCheck.Result r =
        check(
            list(procedure(1, -1, "MigrateRegion", "ROLLEDBACK")),
            List.of(
                dataNode(1, List.of(region7())),
                dataNode(2, List.of(region7())),
                dataNode(
                    3,
                    List.of(),
                    entry(1, "UNDO_ADD_PEER", 2, 5, 10),
                    entry(4, "PING", 2, 1, 15),
                    entry(1, "ADD_PEER", 2, 4, 20))),
            Map.of(100L, 1L));
    assertEquals(
        List.of(
            "DataNode 3 applied ADD_PEER of procedure 1 (term 2, seq 4) after UNDO_ADD_PEER"
                + " (term 2, seq 5), which the procedure sent later"),
        r.violations());
  }
}
