package dev.baton.consensus;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.baton.consensus.proto.Command;
import dev.baton.consensus.proto.CommandReply;
import dev.baton.consensus.proto.StoreWrite;
import dev.baton.procedure.ProcedureExecutor;
import dev.baton.procedure.ProcedureState;
import dev.baton.procedure.store.StoreBatch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader whose executor stops by itself (a store write failed) while the node stays leader
 * launches a new executor in the same term, fenced against the failed one's late writes; a leader
 * that cannot keep an executor running hands leadership to another node.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ExecutorRelaunchTest {
  /** Give-up bound of the tests: short, so the hand-over test does not wait the default. */
  static final Duration GIVE_UP = Duration.ofSeconds(3);

  static final Duration BACKOFF = Duration.ofMillis(100);

  @TempDir Path dir;

  private final StoreFaults faults = new StoreFaults();

  private TestCluster cluster() throws Exception {
    return new TestCluster(
            dir, 3, b -> b.storeDecorator(faults::wrap).executorRelaunch(BACKOFF, GIVE_UP))
        .startAll();
  }

  @Test
  void aFailedStoreWriteWhileStillLeaderRelaunchesTheExecutorInTheSameTerm() throws Exception {
    try (TestCluster cluster = cluster()) {
      ProcedureNode<Work.Env> leader = cluster.awaitRunningLeader();
      long term = leader.term();
      ProcedureExecutor<Work.Env> first = leader.executor().orElseThrow();
      cluster.world.hold("before:APPLY");
      long before = leader.submit(new Work("before"), null).get(30, TimeUnit.SECONDS);
      assertTrue(cluster.world.reached.get("before:APPLY").await(30, TimeUnit.SECONDS));

      // APPLY's outcome is committed, but the executor hears that the write failed and stops
      long failedAt = System.currentTimeMillis();
      faults.landThenFail(leader.nodeId());
      cluster.world.gates.get("before:APPLY").countDown();
      await().atMost(TestCluster.ELECTION_WAIT).until(() -> !first.isRunning());
      assertTrue(first.failure().orElseThrow().getMessage().contains("AFTER_PERSIST"));

      ProcedureExecutor<Work.Env> second =
          await()
              .atMost(TestCluster.ELECTION_WAIT)
              .until(
                  () -> leader.role() == NodeRole.LEADER_RUNNING ? leader.executor() : null,
                  e -> e != null && e.isPresent() && e.get() != first && e.get().isRunning())
              .orElseThrow();
      assertEquals(term, leader.term(), "relaunched in the same term");
      assertTrue(leader.isLeader());
      // the relaunch's recovery is timed from the failure, not from when the node became leader
      LeadershipManager.Recovery relaunch = leader.lastRecovery().orElseThrow();
      assertTrue(relaunch.startedAtMillis() >= failedAt, relaunch + " began before " + failedAt);
      assertTrue(
          relaunch.phases().queued() <= relaunch.runningAtMillis() - failedAt,
          relaunch + " queued longer than since the failure at " + failedAt);
      long after = leader.submit(new Work("after"), null).get(30, TimeUnit.SECONDS);
      for (long id : List.of(before, after)) {
        assertEquals(
            ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(leader, id).state(), "" + id);
      }
      assertTrue(second.isRunning());
      assertEquals(term, leader.term());
      for (World.Step s : cluster.world.steps("before")) {
        assertEquals(term, s.term(), s.toString());
      }

      // a late write of the failed incarnation (epoch 0) is rejected on every node; the control
      // (the epoch the relaunch opened) is applied
      long rejected = leader.rejectedWriteCount();
      CommandReply late = leader.localSubmitter().submit(write(term, 0)).get(30, TimeUnit.SECONDS);
      assertEquals(CommandReply.KindCase.REJECTED, late.getKindCase(), late.toString());
      assertTrue(late.getRejected().contains("epoch 0"), late.toString());
      assertEquals(rejected + 1, leader.rejectedWriteCount());
      long epoch = leader.stateMachine().table().epochOf(term);
      assertEquals(1, epoch, "one relaunch, one fence");
      CommandReply current =
          leader.localSubmitter().submit(write(term, epoch)).get(30, TimeUnit.SECONDS);
      assertTrue(current.getWritten(), current.toString());
      cluster.awaitSameTables();
    }
  }

  @Test
  void aLeaderThatCannotKeepAnExecutorRunningHandsLeadershipToAnotherNode() throws Exception {
    try (TestCluster cluster = cluster()) {
      ProcedureNode<Work.Env> sick = cluster.awaitRunningLeader();
      faults.failAlways(sick.nodeId());
      long procId = sick.submit(new Work("moved"), null).get(30, TimeUnit.SECONDS);

      ProcedureNode<Work.Env> next =
          await()
              .atMost(GIVE_UP.multipliedBy(10))
              .until(
                  cluster::runningLeader,
                  l -> l.isPresent() && !l.get().nodeId().equals(sick.nodeId()))
              .orElseThrow();
      assertNotEquals(sick.nodeId(), next.nodeId());
      assertEquals(ProcedureState.SUCCESS, ProcedureNodeTest.awaitFinished(next, procId).state());
      // the sick leader ran PREPARE again and again (its outcome never became durable) and never
      // got further; the new leader ran the procedure from PREPARE to the end
      List<World.Step> steps = cluster.world.steps("moved");
      for (World.Step s : steps) {
        if (s.node().equals(sick.nodeId())) {
          assertEquals(Work.S.PREPARE.name(), s.state(), steps.toString());
        }
      }
      assertEquals(
          List.of(next.nodeId(), next.nodeId(), next.nodeId()),
          steps.subList(steps.size() - 3, steps.size()).stream().map(World.Step::node).toList());
    }
  }

  private static Command write(long term, long epoch) {
    return Command.newBuilder()
        .setWrite(
            StoreWrite.newBuilder()
                .setTerm(term)
                .setEpoch(epoch)
                .addBatches(
                    ByteString.copyFrom(StoreBatch.builder().build().toProto().toByteArray())))
        .build();
  }
}
