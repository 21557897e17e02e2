package dev.baton.confignode.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.confignode.client.NodeApiClient;
import dev.baton.confignode.datanode.DataNodeClient;
import dev.baton.confignode.datanode.DataNodeState;
import dev.baton.confignode.datanode.LedgerEntry;
import dev.baton.confignode.datanode.RegionReplica;
import dev.baton.confignode.history.LedgerRules;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The cluster's invariants, checked from outside once the cluster is quiet: from the procedures'
 * final states ({@code /api/procedures}), the replicated metadata ({@code /api/metadata}) and the
 * DataNodes' region tables and ledgers ({@code GET /state}).
 *
 * <ul>
 *   <li>every procedure is terminal, and every acknowledged submission is among them;
 *   <li>one procedure per nonce: acknowledged submissions have distinct procIds, and (once every
 *       nonce is resolved) there are no more roots than nonces;
 *   <li>each DataNode hosts exactly the region replicas the metadata places on it;
 *   <li>no DataNode accepted a command of a term lower than one it had accepted before;
 *   <li>per procedure, the terms of its accepted commands never decrease over time (no step of an
 *       old term after a step of a newer one);
 *   <li>per DataNode and procedure, commands were applied in the order the procedure sent them:
 *       (term, seq) never goes back in the ledger (no command the ConfigNode had given up on, e.g.
 *       a step's command applied after the step's undo).
 * </ul>
 */
public final class InvariantCheck {
  /** Root procedures the ConfigNodes submit themselves (DataNode registration at start). */
  static final String SELF_SUBMITTED_TYPE = "AddDataNode";

  /**
   * The outcome.
   *
   * @param violations what does not hold, one line each; empty if all hold
   * @param outcomes root procedures by "type STATE"
   * @param procedures procedures (roots and children) checked
   * @param duplicates commands the DataNodes answered from their ledgers (re-executed steps)
   * @param staleRejected commands the DataNodes refused for a stale term
   * @param superseded commands the DataNodes refused as overtaken by a later one of their procedure
   */
  public record Result(
      List<String> violations,
      Map<String, Integer> outcomes,
      int procedures,
      long duplicates,
      long staleRejected,
      long superseded) {
    public boolean ok() {
      return violations.isEmpty();
    }

    /** This result with one more violation, found by the caller (e.g. a bound a run exceeded). */
    public Result withViolation(String violation) {
      List<String> all = new ArrayList<>(violations);
      all.add(violation);
      return new Result(
          List.copyOf(all), outcomes, procedures, duplicates, staleRejected, superseded);
    }

    /** A few lines for a report. */
    public String describe() {
      StringBuilder b = new StringBuilder();
      b.append("procedures checked: ").append(procedures).append('\n');
      outcomes.forEach((k, v) -> b.append("  ").append(k).append(": ").append(v).append('\n'));
      b.append("re-executed DataNode commands (answered from the ledger): ")
          .append(duplicates)
          .append('\n');
      b.append("stale-term commands rejected by DataNodes: ").append(staleRejected).append('\n');
      b.append("overtaken commands refused by DataNodes: ").append(superseded).append('\n');
      if (ok()) {
        b.append("RESULT: every invariant holds");
      } else {
        b.append("RESULT: ").append(violations.size()).append(" invariant violations:");
        violations.forEach(v -> b.append("\n  - ").append(v));
      }
      return b.toString();
    }
  }

  private InvariantCheck() {}

  /**
   * Checks the cluster.
   *
   * @param acknowledged nonce to procId of every acknowledged submission
   * @param everyNonceResolved true if {@code acknowledged} holds every nonce ever submitted, so the
   *     roots (but the ConfigNodes' own) must be exactly those
   */
  public static Result check(
      NodeApiClient api,
      List<DataNodeClient> dataNodes,
      Map<Long, Long> acknowledged,
      boolean everyNonceResolved)
      throws IOException, InterruptedException {
    JsonNode procedures = api.listProcedures("");
    JsonNode metadata = api.get("/api/metadata");
    List<DataNodeState> states = new ArrayList<>();
    for (DataNodeClient client : dataNodes) {
      states.add(client.state());
    }
    return evaluate(procedures, metadata, states, acknowledged, everyNonceResolved);
  }

  /**
   * The check itself, on what was read: {@code GET /api/procedures}, {@code GET /api/metadata} and
   * every DataNode's {@code GET /state}.
   */
  static Result evaluate(
      JsonNode all,
      JsonNode metadata,
      List<DataNodeState> dataNodes,
      Map<Long, Long> acknowledged,
      boolean everyNonceResolved) {
    List<String> violations = new ArrayList<>();
    Map<String, Integer> outcomes = new TreeMap<>();
    Set<Long> known = new HashSet<>();
    int roots = 0;
    for (JsonNode p : all) {
      known.add(p.get("procId").asLong());
      if (!p.get("finished").asBoolean()) {
        violations.add(
            "procedure "
                + p.get("procId")
                + " ("
                + p.get("type").asText()
                + ") is not terminal: "
                + p.get("state").asText()
                + " at step "
                + p.path("step").asText());
      }
      if (p.get("parentProcId").asLong() < 0) {
        outcomes.merge(p.get("type").asText() + " " + p.get("state").asText(), 1, Integer::sum);
        if (!SELF_SUBMITTED_TYPE.equals(p.get("type").asText())) {
          roots++;
        }
      }
    }
    Map<Long, Long> nonceOf = new HashMap<>();
    acknowledged.forEach(
        (nonce, procId) -> {
          if (!known.contains(procId)) {
            violations.add("acknowledged procedure " + procId + " (nonce " + nonce + ") is lost");
          }
          Long other = nonceOf.putIfAbsent(procId, nonce);
          if (other != null) {
            violations.add(
                "procedure " + procId + " was acknowledged for two nonces " + other + ", " + nonce);
          }
        });
    if (everyNonceResolved && roots != nonceOf.size()) {
      violations.add(
          roots + " root procedures for " + nonceOf.size() + " nonces: a nonce made two");
    }

    Map<Integer, Map<Integer, JsonNode>> placed = new HashMap<>();
    for (JsonNode r : metadata.get("regions")) {
      for (JsonNode dn : r.get("replicas")) {
        placed.computeIfAbsent(dn.asInt(), k -> new HashMap<>()).put(r.get("id").asInt(), r);
      }
    }
    long duplicates = 0;
    long stale = 0;
    long superseded = 0;
    Map<Integer, List<LedgerEntry>> ledgers = new LinkedHashMap<>();
    for (DataNodeState s : dataNodes) {
      checkRegions(s, placed.getOrDefault(s.id(), Map.of()), violations);
      ledgers.put(s.id(), s.ledger());
      duplicates += s.counts().duplicates();
      stale += s.counts().staleRejected();
      superseded += s.counts().superseded();
    }
    LedgerRules.check(ledgers).forEach(v -> violations.add(v.text()));
    return new Result(List.copyOf(violations), outcomes, all.size(), duplicates, stale, superseded);
  }

  private static void checkRegions(
      DataNodeState s, Map<Integer, JsonNode> want, List<String> violations) {
    Set<Integer> have = new HashSet<>();
    for (RegionReplica r : s.regions()) {
      have.add(r.regionId());
      JsonNode m = want.get(r.regionId());
      if (m == null) {
        violations.add(
            "DataNode " + s.id() + " hosts region " + r.regionId() + ", the metadata does not");
      } else if (!m.get("database").asText().equals(r.database())
          || !m.get("kind").asText().equals(r.kind().name())) {
        violations.add(
            String.format(
                "DataNode %d hosts region %d as %s/%s, the metadata says %s/%s",
                s.id(),
                r.regionId(),
                r.database(),
                r.kind(),
                m.get("database").asText(),
                m.get("kind").asText()));
      }
    }
    for (int id : want.keySet()) {
      if (!have.contains(id)) {
        violations.add(
            "the metadata places region "
                + id
                + " on DataNode "
                + s.id()
                + ", which does not host it");
      }
    }
  }
}
