package dev.baton.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A ConfigNode's log read as the steps of its start: each step at its first line, lines without a
 * time (stack traces, gRPC's own format) skipped, steps the log does not show left out.
 */
@Timeout(30)
class RestartTimelineTest {
  @TempDir Path dir;

  @Test
  void eachStepIsTakenFromItsFirstLineAndShownAfterTheOrigin() throws Exception {
    Path log = dir.resolve("cn1-0.log");
    Files.write(
        log,
        List.of(
            "Nov 27, 2026 1:15:54 PM org.apache.ratis.thirdparty.io.grpc.netty.TcpMetrics"
                + " loadEpollInfo",
            "10:00:00.700 [cn1@group-1-LeaderElection1] INFO org.apache.ratis.server.impl"
                + ".LeaderElection - cn1@group-1-LeaderElection1 PRE_VOTE round 0: submit vote"
                + " requests at term 3 for conf: {}",
            "10:00:01.000 [main] INFO dev.baton.consensus.RaftPeer - Procedure node cn1 of cluster"
                + " c started on 127.0.0.1:1 (mutual TLS; existing storage in /d)",
            "\tat org.apache.ratis.server.impl.LeaderElection.run(LeaderElection.java:1)",
            "10:00:01.200 [cn1@group-1-LeaderElection1] INFO org.apache.ratis.server.impl"
                + ".LeaderElection - cn1@group-1-LeaderElection1 ELECTION round 0: submit vote"
                + " requests at term 4 for conf: {}",
            "10:00:01.500 [cn1-LeaderElection1] INFO dev.baton.consensus.LeaderChanges - node cn1:"
                + " leader changed none -> cn1 at term 4 (leader change #1 seen here)",
            "10:00:01.900 [main] INFO dev.baton.confignode.node.ConfigNodeServer - ConfigNode cn1"
                + " serves its admin API on https://127.0.0.1:2, audit log /a",
            "10:00:02.100 [updater] INFO dev.baton.consensus.LeadershipManager - Node cn1 is the"
                + " ready leader of term 4; rebuilding the executor",
            "10:00:02.300 [launch] INFO dev.baton.consensus.LeadershipManager - Node cn1 runs the"
                + " executor of term 4 (epoch 0): 0 live procedures rebuilt in 200 ms ()",
            "10:00:09.000 [x] INFO dev.baton.consensus.LeaderChanges - node cn1: leader changed"
                + " cn1 -> cn2 at term 5 (leader change #2 seen here)"));

    RestartTimeline t = RestartTimeline.read(log);
    long origin = RestartTimeline.lineMillis("10:00:00.000 x").orElseThrow();

    assertEquals(
        "raft +1000 vote +700 leader +1500 api +1900 ready +2100 running +2300",
        t.describe(origin));
    assertEquals(origin + 1_500, (long) t.at(RestartTimeline.Step.LEADER_KNOWN).orElseThrow());
  }

  @Test
  void aFollowerThatNeverLedShowsNoLeaderSteps() throws Exception {
    Path log = dir.resolve("cn2-0.log");
    Files.write(
        log,
        List.of(
            "10:00:01.000 [main] INFO dev.baton.consensus.RaftPeer - Procedure node cn2 of cluster"
                + " c started on 127.0.0.1:1 (mutual TLS; existing storage in /d)",
            "10:00:03.000 [grpc-default-executor-1] INFO dev.baton.consensus.LeaderChanges - node"
                + " cn2: leader changed none -> cn1 at term 4 (leader change #1 seen here)"));

    RestartTimeline t = RestartTimeline.read(log);

    assertTrue(t.at(RestartTimeline.Step.EXECUTOR_RUNNING).isEmpty());
    long origin = RestartTimeline.lineMillis("10:00:00.500 x").orElseThrow();
    assertEquals("raft +500 leader +2500", t.describe(origin));
  }
}
