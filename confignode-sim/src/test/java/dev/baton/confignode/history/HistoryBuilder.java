package dev.baton.confignode.history;

import dev.baton.confignode.datanode.LedgerEntry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Hand-written histories for tests: operations numbered from 1, then the state at the end. */
final class HistoryBuilder {
  static final String NOOP = "Noop";
  static final String SLEEP = "Sleep";
  static final String SELF = "AddDataNode";

  private final List<Operation> operations = new ArrayList<>();
  private final List<ProcedureSeen> procedures = new ArrayList<>();
  private final Set<String> databases = new HashSet<>();
  private final Map<Integer, List<LedgerEntry>> ledgers = new TreeMap<>();

  HistoryBuilder op(String client, long start, long end, Request request, Reply reply) {
    operations.add(new Operation(operations.size() + 1, client, "a", start, end, request, reply));
    return this;
  }

  HistoryBuilder submit(long start, long end, long nonce, String type, Reply reply) {
    return op("c" + nonce, start, end, Request.submit(nonce, type, null), reply);
  }

  HistoryBuilder submitDatabase(long start, long end, long nonce, String type, String db, Reply r) {
    return op("c" + nonce, start, end, Request.submit(nonce, type, db), r);
  }

  HistoryBuilder read(long start, long end, long procId, Reply reply) {
    return op("reader", start, end, Request.readProcedure(procId), reply);
  }

  HistoryBuilder readMetadata(long start, long end, String... names) {
    return op("reader", start, end, Request.readMetadata(), Reply.databases(Set.of(names)));
  }

  HistoryBuilder atEnd(ProcedureSeen... seen) {
    procedures.addAll(List.of(seen));
    return this;
  }

  HistoryBuilder databasesAtEnd(String... names) {
    databases.addAll(List.of(names));
    return this;
  }

  HistoryBuilder ledger(int dataNode, LedgerEntry... entries) {
    ledgers.put(dataNode, List.of(entries));
    return this;
  }

  History build() {
    return new History(operations, new FinalState(procedures, databases, ledgers, Set.of(SELF)));
  }

  static ProcedureSeen live(long id, String type) {
    return new ProcedureSeen(id, true, type, "RUNNABLE", false);
  }

  static ProcedureSeen done(long id, String type) {
    return new ProcedureSeen(id, true, type, ProcedureSeen.SUCCESS, true);
  }

  static ProcedureSeen rolledBack(long id, String type) {
    return new ProcedureSeen(id, true, type, "ROLLEDBACK", true);
  }

  static LedgerEntry entry(long procId, String step, long term, long seq, long time) {
    return new LedgerEntry(procId, step, term, seq, "create", null, null, time, "cn1");
  }
}
