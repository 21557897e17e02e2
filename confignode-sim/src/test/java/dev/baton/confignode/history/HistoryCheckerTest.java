package dev.baton.confignode.history;

import static dev.baton.confignode.history.HistoryBuilder.NOOP;
import static dev.baton.confignode.history.HistoryBuilder.SELF;
import static dev.baton.confignode.history.HistoryBuilder.SLEEP;
import static dev.baton.confignode.history.HistoryBuilder.done;
import static dev.baton.confignode.history.HistoryBuilder.entry;
import static dev.baton.confignode.history.HistoryBuilder.live;
import static dev.baton.confignode.history.HistoryBuilder.rolledBack;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One history per rule that breaks it, and histories that look suspicious but are legal. */
@Timeout(10)
class HistoryCheckerTest {
  private static List<HistoryViolation> check(HistoryBuilder b) {
    return HistoryChecker.check(b.build());
  }

  /** The only violation is of {@code rule}, and its text names these operations and words. */
  private static void assertOnly(HistoryRule rule, HistoryBuilder b, String... words) {
    List<HistoryViolation> found = check(b);
    assertEquals(1, found.size(), found::toString);
    assertEquals(rule, found.get(0).rule(), found::toString);
    String text = found.get(0).toString();
    for (String w : words) {
      assertTrue(text.contains(w), () -> "missing '" + w + "' in: " + text);
    }
  }

  @Test
  void overlappingOperationsAndUnknownOutcomesAreLegal() {
    HistoryBuilder b =
        new HistoryBuilder()
            .submit(0, 10, 1, NOOP, Reply.submitted(1))
            .read(5, 8, 1, Reply.notFound()) // overlaps the submission: may come before it
            .read(11, 12, 1, Reply.found(live(1, NOOP)))
            .read(11, 30, 1, Reply.found(done(1, NOOP)))
            .read(20, 40, 1, Reply.found(live(1, NOOP))) // overlaps the read that saw it done
            .submit(15, 50, 2, SLEEP, Reply.unknown("timed out")) // applied: procedure 2
            .submit(16, 51, 3, SLEEP, Reply.unknown("connection lost")) // not applied
            .submit(17, 52, 4, NOOP, Reply.unknown("timed out"))
            .submit(60, 70, 4, NOOP, Reply.submitted(3)) // the retry finds the nonce's procedure
            .submit(61, 65, 5, NOOP, Reply.failed("400 invalid_request"))
            .submit(0, 100, 6, NOOP, Reply.submitted(4)) // overlaps everything: any id
            .read(80, 81, 9, Reply.unknown("no answer")) // an unknown read shows nothing
            .atEnd(done(1, NOOP), done(2, SLEEP), done(3, NOOP), done(4, NOOP), done(7, SELF));
    assertEquals(List.of(), check(b));
  }

  @Test
  void aLostAcknowledgedSubmissionIsCaught() {
    assertOnly(
        HistoryRule.ACKNOWLEDGED_KEPT,
        new HistoryBuilder().submit(0, 10, 7, NOOP, Reply.submitted(1)),
        "procedure 1 (nonce 7) is lost",
        "#1 submit Noop with nonce 7");
  }

  @Test
  void aNonceAcknowledgedAsTwoProceduresIsCaught() {
    assertOnly(
        HistoryRule.ONE_PROCEDURE_PER_NONCE,
        new HistoryBuilder()
            .submit(0, 10, 7, NOOP, Reply.submitted(1))
            .submit(20, 30, 7, NOOP, Reply.submitted(2))
            .atEnd(done(1, NOOP), done(2, NOOP)),
        "nonce 7 was acknowledged as procedure 1 and as procedure 2",
        "#1",
        "#2");
  }

  @Test
  void aNonceThatRanTwiceIsCaught() {
    assertOnly(
        HistoryRule.RUNS_ONCE_PER_NONCE,
        new HistoryBuilder()
            .submit(0, 10, 7, NOOP, Reply.submitted(1))
            .atEnd(done(1, NOOP), done(2, NOOP)),
        "1 root Noop procedures at the end [2]");
  }

  @Test
  void aFailedSubmissionThatRanIsCaughtButATimedOutOneMayRun() {
    HistoryBuilder failed =
        new HistoryBuilder()
            .submit(0, 10, 7, SLEEP, Reply.failed("409 lock conflict"))
            .atEnd(done(1, SLEEP));
    assertOnly(HistoryRule.RUNS_ONCE_PER_NONCE, failed, "(1 failed ones made none)", "#1");
    HistoryBuilder timedOut =
        new HistoryBuilder()
            .submit(0, 10, 7, SLEEP, Reply.unknown("timed out"))
            .atEnd(done(1, SLEEP));
    assertEquals(List.of(), check(timedOut));
    timedOut.atEnd(done(2, SLEEP)); // but it counts once
    assertOnly(HistoryRule.RUNS_ONCE_PER_NONCE, timedOut, "2 root Sleep procedures");
  }

  @Test
  void oneIdForTwoNoncesIsCaught() {
    List<HistoryViolation> found =
        check(
            new HistoryBuilder()
                .submit(0, 10, 7, NOOP, Reply.submitted(1))
                .submit(5, 30, 8, NOOP, Reply.submitted(1))
                .atEnd(done(1, NOOP)));
    assertEquals(List.of(HistoryRule.UNIQUE_IDS), found.stream().map(v -> v.rule()).toList());
    assertTrue(found.get(0).text().contains("procedure 1 was acknowledged for nonces 7 and 8"));
  }

  @Test
  void anIdLowerThanOneKnownBeforeTheSubmissionStartedIsCaught() {
    assertOnly(
        HistoryRule.IDS_GROW,
        new HistoryBuilder()
            .submit(0, 10, 7, NOOP, Reply.submitted(5))
            .submit(20, 30, 8, NOOP, Reply.submitted(3))
            .atEnd(done(3, NOOP), done(5, NOOP)),
        "nonce 8 was first sent after procedure 5 was known, yet got procedure 3");
    // a read that saw a child procedure counts as knowing its id
    assertOnly(
        HistoryRule.IDS_GROW,
        new HistoryBuilder()
            .read(
                0,
                5,
                9,
                Reply.found(new ProcedureSeen(9, false, "MigrateRegion", "RUNNABLE", false)))
            .submit(20, 30, 8, NOOP, Reply.submitted(3))
            .atEnd(done(3, NOOP), new ProcedureSeen(9, false, "MigrateRegion", "SUCCESS", true)),
        "after procedure 9 was known");
    // overlapping submissions may get their ids in either order
    assertEquals(
        List.of(),
        check(
            new HistoryBuilder()
                .submit(0, 10, 7, NOOP, Reply.submitted(5))
                .submit(5, 30, 8, NOOP, Reply.submitted(3))
                .atEnd(done(3, NOOP), done(5, NOOP))));
  }

  @Test
  void aReadMissingAnAcknowledgedProcedureIsCaughtOnAnyNode() {
    assertOnly(
        HistoryRule.READ_SEES_WRITE,
        new HistoryBuilder()
            .submit(0, 10, 7, NOOP, Reply.submitted(1))
            .read(20, 25, 1, Reply.notFound())
            .atEnd(done(1, NOOP)),
        "procedure 1 was acknowledged before read #2 started, which did not find it");
    assertOnly(
        HistoryRule.READ_SEES_WRITE,
        new HistoryBuilder()
            .submit(0, 10, 7, NOOP, Reply.unknown("timed out"))
            .read(20, 25, 1, Reply.found(live(1, NOOP)))
            .read(30, 35, 1, Reply.notFound())
            .atEnd(done(1, NOOP)),
        "procedure 1 was found by a read before read #3 started");
  }

  @Test
  void aTerminalProcedureSeenLiveAgainIsCaught() {
    assertOnly(
        HistoryRule.TERMINAL_STAYS_TERMINAL,
        new HistoryBuilder()
            .submit(0, 10, 7, NOOP, Reply.submitted(1))
            .read(20, 25, 1, Reply.found(done(1, NOOP)))
            .read(30, 35, 1, Reply.found(live(1, NOOP)))
            .atEnd(done(1, NOOP)),
        "procedure 1 was seen terminal in SUCCESS, a later read saw it live in RUNNABLE");
    assertOnly(
        HistoryRule.TERMINAL_STAYS_TERMINAL,
        new HistoryBuilder()
            .submit(0, 10, 7, NOOP, Reply.submitted(1))
            .read(20, 25, 1, Reply.found(done(1, NOOP)))
            .atEnd(rolledBack(1, NOOP)),
        "a later read saw it terminal in ROLLEDBACK",
        "the procedures at the end");
  }

  @Test
  void aProcedureOfAnotherTypeThanSubmittedIsCaught() {
    assertOnly(
        HistoryRule.READ_SEES_SUBMITTED_TYPE,
        new HistoryBuilder()
            .submit(0, 10, 7, NOOP, Reply.submitted(1))
            .read(20, 25, 1, Reply.found(live(1, SLEEP)))
            .atEnd(done(1, NOOP)),
        "procedure 1 was submitted as Noop, a read found a Sleep");
  }

  @Test
  void metadataMissingACreatedDatabaseIsCaughtUnlessADeleteWasSent() {
    String create = Request.CREATE_DATABASE;
    HistoryBuilder b =
        new HistoryBuilder()
            .submitDatabase(0, 10, 7, create, "db1", Reply.submitted(1))
            .read(20, 25, 1, Reply.found(done(1, create)))
            .readMetadata(30, 35)
            .atEnd(done(1, create))
            .databasesAtEnd("db1");
    assertOnly(HistoryRule.METADATA_SEES_FINISHED, b, "database db1 was seen created", "#3");
    b.submitDatabase(32, 40, 8, Request.DELETE_DATABASE, "db1", Reply.unknown("timed out"));
    assertEquals(List.of(), check(b));
  }

  @Test
  void metadataKeepingADeletedDatabaseIsCaught() {
    String delete = Request.DELETE_DATABASE;
    assertOnly(
        HistoryRule.METADATA_SEES_FINISHED,
        new HistoryBuilder()
            .submitDatabase(0, 10, 7, Request.CREATE_DATABASE, "db1", Reply.submitted(1))
            .submitDatabase(12, 15, 8, delete, "db1", Reply.submitted(2))
            .read(20, 25, 2, Reply.found(done(2, delete)))
            .atEnd(done(1, Request.CREATE_DATABASE), done(2, delete))
            .databasesAtEnd("db1"),
        "database db1 was seen deleted",
        "the databases at the end [db1]");
  }

  @Test
  void ledgerRulesCatchStaleTermsAndCommandsOutOfOrder() {
    List<HistoryViolation> found =
        check(
            new HistoryBuilder()
                .ledger(1, entry(1, "A", 3, 1, 10), entry(2, "B", 2, 1, 20))
                .ledger(
                    2, entry(1, "C", 1, 1, 30), entry(3, "D", 4, 5, 40), entry(3, "E", 4, 4, 50)));
    assertEquals(
        List.of(
            "DataNode 1 accepted create (procedure 2, step B) of term 2 after term 3",
            "DataNode 2 applied E of procedure 3 (term 4, seq 4) after D (term 4, seq 5), which the"
                + " procedure sent later",
            "procedure 1: step C of term 1 was accepted after step A of term 3"),
        found.stream().map(HistoryViolation::text).toList());
    assertEquals(
        List.of(HistoryRule.TERM_FENCING, HistoryRule.SEND_ORDER, HistoryRule.TERM_FENCING),
        found.stream().map(HistoryViolation::rule).toList());
  }

  @Test
  void theSummaryCountsOperationsByKindAndOutcome() {
    History h =
        new HistoryBuilder()
            .submit(0, 10, 7, NOOP, Reply.submitted(1))
            .submit(0, 10, 8, NOOP, Reply.unknown("timed out"))
            .read(20, 25, 1, Reply.notFound())
            .atEnd(done(1, NOOP))
            .build();
    List<HistoryViolation> found = HistoryChecker.check(h);
    assertEquals(
        "history: 3 operations; submit 1 ok 1 unknown; read_procedure 1 ok; 1 history rule"
            + " violations",
        HistoryChecker.summary(h, found));
  }
}
