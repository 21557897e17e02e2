package dev.baton.confignode.history;

import dev.baton.confignode.datanode.LedgerEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rules on the DataNodes' ledgers of accepted commands (each oldest first): term fencing per
 * DataNode and per procedure, and per DataNode and procedure the order the commands were sent in.
 */
public final class LedgerRules {
  private LedgerRules() {}

  /** The violations in these ledgers, by DataNode id. */
  public static List<HistoryViolation> check(Map<Integer, List<LedgerEntry>> ledgers) {
    List<HistoryViolation> out = new ArrayList<>();
    Map<Long, List<LedgerEntry>> byProc = new HashMap<>();
    ledgers.forEach(
        (dataNode, ledger) -> {
          long highest = 0;
          for (LedgerEntry e : ledger) {
            if (e.term() < highest) {
              out.add(
                  violation(
                      HistoryRule.TERM_FENCING,
                      "DataNode %d accepted %s (procedure %d, step %s) of term %d after term %d",
                      dataNode,
                      e.command(),
                      e.procId(),
                      e.step(),
                      e.term(),
                      highest));
            }
            highest = Math.max(highest, e.term());
            byProc.computeIfAbsent(e.procId(), k -> new ArrayList<>()).add(e);
          }
          sendOrder(dataNode, ledger, out);
        });
    byProc.forEach((procId, entries) -> termsOf(procId, entries, out));
    return out;
  }

  private static HistoryViolation violation(HistoryRule rule, String format, Object... args) {
    return new HistoryViolation(rule, String.format(format, args), List.of());
  }

  /** The ledger lists commands in the order applied; per procedure their (term, seq) must grow. */
  private static void sendOrder(
      int dataNode, List<LedgerEntry> ledger, List<HistoryViolation> out) {
    Map<Long, LedgerEntry> last = new HashMap<>();
    for (LedgerEntry e : ledger) {
      LedgerEntry before = last.get(e.procId());
      if (before != null
          && (e.term() < before.term() || (e.term() == before.term() && e.seq() < before.seq()))) {
        out.add(
            violation(
                HistoryRule.SEND_ORDER,
                "DataNode %d applied %s of procedure %d (term %d, seq %d) after %s (term %d, seq"
                    + " %d), which the procedure sent later",
                dataNode,
                e.step(),
                e.procId(),
                e.term(),
                e.seq(),
                before.step(),
                before.term(),
                before.seq()));
      } else {
        last.put(e.procId(), e);
      }
    }
  }

  /** Across DataNodes, by the time each applied it: no command of an older term after a newer. */
  private static void termsOf(long procId, List<LedgerEntry> entries, List<HistoryViolation> out) {
    entries.sort(Comparator.comparingLong(LedgerEntry::time));
    LedgerEntry newest = null; // the first accepted command of the highest term so far
    for (LedgerEntry e : entries) {
      // commands applied in the same millisecond on two DataNodes have no order to check
      if (newest != null && e.term() < newest.term() && e.time() > newest.time()) {
        out.add(
            violation(
                HistoryRule.TERM_FENCING,
                "procedure %d: step %s of term %d was accepted after step %s of term %d",
                procId,
                e.step(),
                e.term(),
                newest.step(),
                newest.term()));
      }
      if (newest == null || e.term() > newest.term()) {
        newest = e;
      }
    }
  }
}
