package dev.baton.confignode.drill;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.datanode.DataNodeState;
import dev.baton.confignode.datanode.DuplicateCommand;
import dev.baton.confignode.datanode.LedgerEntry;
import dev.baton.confignode.datanode.RegionReplica;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The drill's invariants, checked from the procedures' final states, the metadata and the
 * DataNodes' ledgers: every procedure terminal; DataNode region tables equal the metadata; no
 * command accepted with a term lower than one seen before (fencing); no step's command re-run more
 * than once in one leader term; in a secured cluster, every applied command names the ConfigNode
 * that sent it. Fills the report's outcome and ledger figures on the way.
 */
final class DrillChecks {
  private final NodeApiClient api;
  private final List<DataNodeClient> dataNodes;
  private final Set<String> senders;
  private final DrillReport report;
  private final List<String> violations = new ArrayList<>();

  /**
   * @param senders the ConfigNode ids every applied command must name as its sender (a secured
   *     cluster's DataNodes know who called); empty when they cannot know (plain HTTP)
   */
  DrillChecks(
      NodeApiClient api, List<DataNodeClient> dataNodes, Set<String> senders, DrillReport report) {
    this.api = api;
    this.dataNodes = dataNodes;
    this.senders = Set.copyOf(senders);
    this.report = report;
  }

  /** The violations found (empty if every invariant holds). */
  List<String> run() throws IOException, InterruptedException {
    JsonNode all = api.listProcedures("");
    for (JsonNode p : all) {
      if (!p.get("finished").asBoolean()) {
        violations.add("procedure " + p.get("procId") + " is not terminal: " + p.get("state"));
      }
      if (p.get("parentProcId").asLong() < 0) {
        report.outcomes.merge(
            p.get("type").asText() + " " + p.get("state").asText(), 1, Integer::sum);
      }
    }
    report.procedures = all.size();
    JsonNode meta = api.get("/api/metadata");
    Map<Integer, Map<Integer, JsonNode>> expected = new HashMap<>();
    for (JsonNode r : meta.get("regions")) {
      for (JsonNode dn : r.get("replicas")) {
        expected.computeIfAbsent(dn.asInt(), k -> new HashMap<>()).put(r.get("id").asInt(), r);
      }
    }
    long firstNewStep = Long.MAX_VALUE;
    for (DataNodeClient dataNode : dataNodes) {
      DataNodeState s = dataNode.state();
      checkRegions(s, expected.getOrDefault(s.id(), Map.of()));
      firstNewStep = Math.min(firstNewStep, checkFencing(s));
      checkDuplicates(s);
      if (!senders.isEmpty()) {
        violations.addAll(unknownSenders(s.id(), s.ledger(), senders));
      }
      s.ledger().stream()
          .filter(e -> e.caller() != null)
          .forEach(e -> report.senders.merge(e.caller(), 1, Integer::sum));
      report.duplicates += s.counts().duplicates();
      report.staleRejected += s.counts().staleRejected();
      report.superseded += s.counts().superseded();
    }
    report.firstStepAt = firstNewStep == Long.MAX_VALUE ? 0 : firstNewStep;
    return violations;
  }

  private void checkRegions(DataNodeState s, Map<Integer, JsonNode> want) {
    Set<Integer> have = new HashSet<>();
    for (RegionReplica r : s.regions()) {
      have.add(r.regionId());
      JsonNode m = want.get(r.regionId());
      if (m == null) {
        violations.add(
            "DataNode "
                + s.id()
                + " hosts region "
                + r.regionId()
                + " that the metadata does not place there");
      } else if (!m.get("database").asText().equals(r.database())
          || !m.get("kind").asText().equals(r.kind().name())) {
        violations.add(
            "DataNode " + s.id() + " region " + r.regionId() + " differs from the metadata");
      }
    }
    for (int id : want.keySet()) {
      if (!have.contains(id)) {
        violations.add(
            "metadata places region " + id + " on DataNode " + s.id() + ", which does not host it");
      }
    }
  }

  /** Terms never go down in the ledger; returns the time of the first command of the new term. */
  private long checkFencing(DataNodeState s) {
    long highest = 0;
    long firstNewStep = Long.MAX_VALUE;
    for (LedgerEntry e : s.ledger()) {
      if (e.term() < highest) {
        violations.add(
            "DataNode "
                + s.id()
                + " accepted "
                + e.command()
                + " of term "
                + e.term()
                + " after term "
                + highest);
      }
      highest = Math.max(highest, e.term());
      if (e.term() == report.newTerm) {
        firstNewStep = Math.min(firstNewStep, e.time());
      }
    }
    return firstNewStep;
  }

  /** The ledger entries of one DataNode that name no sender, or one not in {@code senders}. */
  static List<String> unknownSenders(int dataNode, List<LedgerEntry> ledger, Set<String> senders) {
    List<String> found = new ArrayList<>();
    for (LedgerEntry e : ledger) {
      if (e.caller() == null || !senders.contains(e.caller())) {
        found.add(
            "DataNode "
                + dataNode
                + " applied "
                + e.command()
                + " of procedure "
                + e.procId()
                + " step "
                + e.step()
                + " from "
                + (e.caller() == null ? "an unnamed sender" : e.caller())
                + ", not one of the ConfigNodes "
                + new TreeSet<>(senders));
      }
    }
    return found;
  }

  /**
   * A step's commands are re-sent at most once per leader term: a new leader re-runs the step that
   * was interrupted, once. More than one re-run in the same term means the executor ran a step
   * twice without a failover. (A busy machine may elect more leaders than the drill kills, so the
   * count is per term, not per drill.)
   */
  private void checkDuplicates(DataNodeState s) {
    violations.addAll(repeatedReruns(s.id(), s.duplicates()));
  }

  /** The violations among one DataNode's duplicate commands (see {@link #checkDuplicates}). */
  static List<String> repeatedReruns(int dataNode, List<DuplicateCommand> duplicates) {
    List<String> found = new ArrayList<>();
    Map<String, Integer> perKey = new HashMap<>();
    for (DuplicateCommand d : duplicates) {
      int n = perKey.merge(d.procId() + "/" + d.step() + "@" + d.term(), 1, Integer::sum);
      if (n > 1) {
        found.add(
            "step "
                + d.step()
                + " of procedure "
                + d.procId()
                + " re-ran "
                + n
                + " times in term "
                + d.term()
                + " on DataNode "
                + dataNode);
      }
    }
    return found;
  }
}
