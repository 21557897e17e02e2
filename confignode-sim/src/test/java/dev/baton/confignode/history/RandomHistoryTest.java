package dev.baton.confignode.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.confignode.datanode.LedgerEntry;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded legal histories ({@link LegalHistories}) pass the checker for many seeds; each mutation
 * that breaks a rule is caught. A failure names the seed; {@code LegalHistories.generate(seed)}
 * replays it.
 */
@Timeout(30)
class RandomHistoryTest {
  static final int SEEDS = 300;

  /** Each mutation must apply to at least this share (1/N) of the seeds, so it is exercised. */
  static final int MIN_APPLIED_SHARE = 4;

  @Test
  void legalHistoriesPassForEverySeed() {
    Map<Outcome, Integer> submitOutcomes = new EnumMap<>(Outcome.class);
    for (long seed = 0; seed < SEEDS; seed++) {
      History h = LegalHistories.generate(seed);
      List<HistoryViolation> found = HistoryChecker.check(h);
      long s = seed;
      assertEquals(List.of(), found, () -> "seed " + s + " is legal but was rejected: " + found);
      h.operations().stream()
          .filter(o -> o.request().isSubmit())
          .forEach(o -> submitOutcomes.merge(o.reply().outcome(), 1, Integer::sum));
    }
    for (Outcome o : Outcome.values()) {
      assertTrue(submitOutcomes.getOrDefault(o, 0) > SEEDS, () -> "too few " + o + " submissions");
    }
  }

  @Test
  void theSameSeedGivesTheSameHistory() {
    assertEquals(LegalHistories.generate(7), LegalHistories.generate(7));
  }

  @Test
  void everyMutationIsCaught() {
    Map<HistoryRule, Function<History, Optional<History>>> mutations = new LinkedHashMap<>();
    mutations.put(HistoryRule.ACKNOWLEDGED_KEPT, RandomHistoryTest::loseAnAcknowledgedProcedure);
    mutations.put(HistoryRule.ONE_PROCEDURE_PER_NONCE, RandomHistoryTest::acknowledgeANonceTwice);
    mutations.put(HistoryRule.RUNS_ONCE_PER_NONCE, RandomHistoryTest::runANonceTwice);
    mutations.put(HistoryRule.IDS_GROW, RandomHistoryTest::swapTwoOrderedIds);
    mutations.put(HistoryRule.READ_SEES_WRITE, RandomHistoryTest::missAnAcknowledgedProcedure);
    mutations.put(HistoryRule.TERMINAL_STAYS_TERMINAL, RandomHistoryTest::reviveATerminalOne);
    mutations.put(HistoryRule.METADATA_SEES_FINISHED, RandomHistoryTest::forgetACreatedDatabase);
    mutations.put(HistoryRule.TERM_FENCING, RandomHistoryTest::acceptAStaleTerm);
    Map<HistoryRule, Integer> applied = new EnumMap<>(HistoryRule.class);
    for (long seed = 0; seed < SEEDS; seed++) {
      History legal = LegalHistories.generate(seed);
      for (Map.Entry<HistoryRule, Function<History, Optional<History>>> m : mutations.entrySet()) {
        Optional<History> broken = m.getValue().apply(legal);
        if (broken.isEmpty()) {
          continue;
        }
        applied.merge(m.getKey(), 1, Integer::sum);
        List<HistoryViolation> found = HistoryChecker.check(broken.get());
        long s = seed;
        assertTrue(
            found.stream().anyMatch(v -> v.rule() == m.getKey()),
            () ->
                "seed " + s + ": a mutation breaking " + m.getKey() + " was not caught: " + found);
      }
    }
    for (HistoryRule r : mutations.keySet()) {
      assertTrue(
          applied.getOrDefault(r, 0) >= SEEDS / MIN_APPLIED_SHARE,
          () -> "the mutation for " + r + " applied to " + applied.get(r) + " seeds only");
    }
  }

  // ---- mutations: each breaks one rule of a legal history, or is empty if it cannot here ----

  private static long maxEnd(History h) {
    return h.operations().stream().mapToLong(Operation::endNanos).max().orElse(0);
  }

  /** A new operation after every other one of {@code h}, by the client {@code mutant}. */
  private static Operation after(History h, Request request, Reply reply) {
    long t = maxEnd(h) + 1;
    return new Operation(h.operations().size() + 1, "mutant", "n0", t, t + 1, request, reply);
  }

  private static History with(History h, Operation extra, FinalState end) {
    List<Operation> ops = new ArrayList<>(h.operations());
    if (extra != null) {
      ops.add(extra);
    }
    return new History(ops, end);
  }

  private static FinalState withProcedures(FinalState e, List<ProcedureSeen> procedures) {
    return new FinalState(procedures, e.databases(), e.ledgers(), e.selfSubmittedTypes());
  }

  private static Optional<Operation> firstAcknowledged(History h) {
    return h.operations().stream().filter(o -> o.request().isSubmit() && o.ok()).findFirst();
  }

  private static Optional<History> loseAnAcknowledgedProcedure(History h) {
    return firstAcknowledged(h)
        .map(
            ack ->
                with(
                    h,
                    null,
                    withProcedures(
                        h.end(),
                        h.end().procedures().stream()
                            .filter(p -> p.procId() != ack.reply().procId())
                            .toList())));
  }

  private static Optional<History> acknowledgeANonceTwice(History h) {
    return firstAcknowledged(h)
        .map(
            ack -> {
              long id = ack.reply().procId() + 1_000_000;
              List<ProcedureSeen> end = new ArrayList<>(h.end().procedures());
              end.add(new ProcedureSeen(id, true, ack.request().type(), "SUCCESS", true));
              Operation again = after(h, ack.request(), Reply.submitted(id));
              return with(h, again, withProcedures(h.end(), end));
            });
  }

  private static Optional<History> runANonceTwice(History h) {
    return firstAcknowledged(h)
        .map(
            ack -> {
              String type = ack.request().type();
              long nonces =
                  h.operations().stream()
                      .filter(o -> o.request().isSubmit() && o.request().type().equals(type))
                      .map(o -> o.request().nonce())
                      .distinct()
                      .count();
              List<ProcedureSeen> end = new ArrayList<>(h.end().procedures());
              for (long i = 1; i <= nonces + 1; i++) {
                end.add(new ProcedureSeen(2_000_000 + i, true, type, "SUCCESS", true));
              }
              return with(h, null, withProcedures(h.end(), end));
            });
  }

  /** Two acknowledged nonces, the first acknowledged before the second was first sent. */
  private static Optional<History> swapTwoOrderedIds(History h) {
    Map<Long, Operation> firstAttempt = new LinkedHashMap<>();
    Map<Long, Operation> firstAck = new LinkedHashMap<>();
    h.operations().stream()
        .filter(o -> o.request().isSubmit())
        .sorted((a, b) -> Long.compare(a.startNanos(), b.startNanos()))
        .forEach(
            o -> {
              firstAttempt.putIfAbsent(o.request().nonce(), o);
              if (o.ok()) {
                firstAck.merge(
                    o.request().nonce(), o, (x, y) -> x.endNanos() <= y.endNanos() ? x : y);
              }
            });
    for (Operation a : firstAck.values()) {
      for (Operation b : firstAck.values()) {
        if (a.endNanos() < firstAttempt.get(b.request().nonce()).startNanos()) {
          return Optional.of(swap(h, a.reply().procId(), b.reply().procId()));
        }
      }
    }
    return Optional.empty();
  }

  private static History swap(History h, long x, long y) {
    Function<Long, Long> s = id -> id == x ? y : id == y ? x : id;
    Function<ProcedureSeen, ProcedureSeen> p =
        v -> new ProcedureSeen(s.apply(v.procId()), v.root(), v.type(), v.state(), v.finished());
    List<Operation> ops = new ArrayList<>();
    for (Operation o : h.operations()) {
      Request r = o.request();
      Reply y0 = o.reply();
      Request r2 = new Request(r.kind(), r.nonce(), r.type(), r.database(), s.apply(r.procId()));
      Reply y2 =
          new Reply(
              y0.outcome(),
              y0.reason(),
              s.apply(y0.procId()),
              y0.seen().stream().map(p).toList(),
              y0.databases());
      ops.add(new Operation(o.id(), o.client(), o.node(), o.startNanos(), o.endNanos(), r2, y2));
    }
    return new History(ops, withProcedures(h.end(), h.end().procedures().stream().map(p).toList()));
  }

  private static Optional<History> missAnAcknowledgedProcedure(History h) {
    return firstAcknowledged(h)
        .map(
            ack -> {
              Operation read =
                  after(h, Request.readProcedure(ack.reply().procId()), Reply.notFound());
              return with(h, read, h.end());
            });
  }

  private static Optional<History> reviveATerminalOne(History h) {
    for (Operation o : h.operations()) {
      if (o.ok() && o.kind() == OperationKind.READ_PROCEDURE && !o.reply().seen().isEmpty()) {
        ProcedureSeen p = o.reply().seen().get(0);
        if (p.finished()) {
          ProcedureSeen live = new ProcedureSeen(p.procId(), p.root(), p.type(), "RUNNABLE", false);
          return Optional.of(
              with(h, after(h, Request.readProcedure(p.procId()), Reply.found(live)), h.end()));
        }
      }
    }
    return Optional.empty();
  }

  /** A created database never deleted: seen created by one more read, gone from the end. */
  private static Optional<History> forgetACreatedDatabase(History h) {
    Set<String> deletes =
        h.operations().stream()
            .filter(o -> o.request().isSubmit())
            .filter(o -> Request.DELETE_DATABASE.equals(o.request().type()))
            .map(o -> o.request().database())
            .collect(Collectors.toSet());
    for (Operation o : h.operations()) {
      Request r = o.request();
      if (r.isSubmit() && o.ok() && Request.CREATE_DATABASE.equals(r.type())) {
        long id = o.reply().procId();
        Optional<ProcedureSeen> atEnd =
            h.end().procedures().stream().filter(p -> p.procId() == id).findFirst();
        if (!deletes.contains(r.database()) && atEnd.isPresent() && atEnd.get().succeeded()) {
          Operation read = after(h, Request.readProcedure(id), Reply.found(atEnd.get()));
          Set<String> dbs = new HashSet<>(h.end().databases());
          dbs.remove(r.database());
          FinalState e = h.end();
          return Optional.of(
              with(
                  h,
                  read,
                  new FinalState(e.procedures(), dbs, e.ledgers(), e.selfSubmittedTypes())));
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<History> acceptAStaleTerm(History h) {
    FinalState e = h.end();
    for (Map.Entry<Integer, List<LedgerEntry>> l : e.ledgers().entrySet()) {
      List<LedgerEntry> ledger = l.getValue();
      if (!ledger.isEmpty() && ledger.get(ledger.size() - 1).term() > 1) {
        LedgerEntry last = ledger.get(ledger.size() - 1);
        List<LedgerEntry> changed = new ArrayList<>(ledger);
        changed.add(
            HistoryBuilder.entry(
                last.procId(), "LATE", last.term() - 1, last.seq() + 1, last.time() + 1));
        Map<Integer, List<LedgerEntry>> ledgers = new LinkedHashMap<>(e.ledgers());
        ledgers.put(l.getKey(), changed);
        return Optional.of(
            new History(
                h.operations(),
                new FinalState(e.procedures(), e.databases(), ledgers, e.selfSubmittedTypes())));
      }
    }
    return Optional.empty();
  }
}
