package dev.baton.consensus;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A failed cluster wait reports every node's Raft state and the nodes' thread stacks. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterDiagnosticsTest {
  @TempDir Path dir;

  @Test
  void aTimedOutWaitNamesWhatItAwaitedWithEveryNodesStateAndThreads() throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3)) {
      cluster.start("n1");
      AssertionError e =
          assertThrows(
              AssertionError.class,
              () ->
                  cluster.diagnosed(
                      "a leader of one node out of three",
                      () -> {
                        throw new ConditionTimeoutException("timed out");
                      }));
      String report = e.getMessage();
      for (String expected :
          List.of(
              "a leader of one node out of three within " + TestCluster.ELECTION_WAIT,
              "(?m)^  n1: role=FOLLOWER .*raft=RUNNING (FOLLOWER|CANDIDATE) term=\\d+ ",
              "(?m)^  n2: closed$",
              "(?m)^  n3: closed$",
              "(?m)^  n1@group-\\S+ (RUNNABLE|WAITING|TIMED_WAITING|BLOCKED)$",
              "idle pool and event-loop threads not shown")) {
        assertTrue(Pattern.compile(expected).matcher(report).find(), expected + " in " + report);
      }
      assertInstanceOf(ConditionTimeoutException.class, e.getCause());
    }
  }
}
