package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.procedure.ProcedureState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flow resume, carried out before it is recorded, joins the replicated audit trail in one decided
 * entry (refused when it has no reason or names no node), the same on every node; a procedure's
 * state timeline is read back from any node's Raft log with the term of each record.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RecordedResumeAndHistoryTest {
  private static final long WAIT_S = 30;

  @TempDir Path dir;

  @Test
  void resumesAreRecordedDecidedAndTimelinesComeFromTheLog() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3).startAll()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      ProcedureNode<Work.Env> follower = cluster.follower();

      ExecutionException noReason =
          assertThrows(
              ExecutionException.class,
              () ->
                  follower
                      .recordResume(7, "load", "RERUN", "alice", " ", false, "ok")
                      .get(WAIT_S, TimeUnit.SECONDS));
      assertTrue(
          noReason.getCause().getMessage().contains("a reason is required"),
          noReason.getCause()::toString);
      ExecutionException noNode =
          assertThrows(
              ExecutionException.class,
              () ->
                  follower
                      .recordResume(7, " ", "RERUN", "alice", "why", false, "ok")
                      .get(WAIT_S, TimeUnit.SECONDS));
      assertTrue(
          noNode.getCause().getMessage().contains("names the flow's node"),
          noNode.getCause()::toString);

      AuditEntry done =
          follower
              .recordResume(7, "load", "MARK_SUCCEEDED", "alice", "DataNode back", false, "goes on")
              .get(WAIT_S, TimeUnit.SECONDS);
      AuditEntry refused =
          leader
              .recordResume(7, "load", "RERUN", "bob", "again", true, "not PENDING")
              .get(WAIT_S, TimeUnit.SECONDS);
      assertTrue(done.decided() && !done.refused(), done::toString);
      assertEquals(AuditEntry.FLOW_RESUME, done.action());
      List<AuditEntry> expected = List.of(done, refused);
      Awaitility.await("the same trail on every node")
          .atMost(Duration.ofSeconds(WAIT_S))
          .ignoreExceptions()
          .until(
              () -> {
                for (ProcedureNode<Work.Env> n : cluster.running()) {
                  if (!n.audit().get(WAIT_S, TimeUnit.SECONDS).equals(expected)) {
                    return false;
                  }
                }
                return true;
              });

      long id = leader.submit(new Work("timeline"), null).get(WAIT_S, TimeUnit.SECONDS);
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, id).state());
      ProcedureHistory atLeader = leader.history(id);
      assertTrue(atLeader.complete(), atLeader::toString);
      List<ProcedureHistory.Step> steps = atLeader.steps();
      assertFalse(steps.isEmpty(), atLeader::toString);
      assertTrue(steps.stream().allMatch(s -> s.term() == leader.term()), atLeader::toString);
      ProcedureHistory.Step last = steps.get(steps.size() - 1);
      assertTrue(last.finished() && last.state() == ProcedureState.SUCCESS, atLeader::toString);
      for (int i = 1; i < steps.size(); i++) {
        assertTrue(steps.get(i).index() >= steps.get(i - 1).index(), atLeader::toString);
      }
      Awaitility.await("the follower's log holds the same timeline")
          .atMost(Duration.ofSeconds(WAIT_S))
          .until(() -> follower.history(id).steps().equals(steps));
    }
  }
}
