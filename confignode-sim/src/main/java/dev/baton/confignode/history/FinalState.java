package dev.baton.confignode.history;

import dev.baton.confignode.datanode.LedgerEntry;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the cluster held once it was quiet, read after every operation of the history.
 *
 * @param procedures every procedure, roots and children
 * @param databases the databases of the metadata
 * @param ledgers each DataNode's accepted commands in the order applied, oldest first, by DataNode
 *     id
 * @param selfSubmittedTypes root procedure types the ConfigNodes submit themselves (no client
 *     submission explains them)
 */
public record FinalState(
    List<ProcedureSeen> procedures,
    Set<String> databases,
    Map<Integer, List<LedgerEntry>> ledgers,
    Set<String> selfSubmittedTypes) {
  public FinalState {
    procedures = List.copyOf(procedures);
    databases = Set.copyOf(databases);
    Map<Integer, List<LedgerEntry>> sorted = new TreeMap<>();
    ledgers.forEach((id, ledger) -> sorted.put(id, List.copyOf(ledger)));
    ledgers = java.util.Collections.unmodifiableMap(sorted);
    selfSubmittedTypes = Set.copyOf(selfSubmittedTypes);
  }
}
