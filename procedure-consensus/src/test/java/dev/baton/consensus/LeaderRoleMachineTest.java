package dev.baton.consensus;

import static dev.baton.consensus.NodeRole.FOLLOWER;
import static dev.baton.consensus.NodeRole.LEADER_RECOVERING;
import static dev.baton.consensus.NodeRole.LEADER_RUNNING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.consensus.LeaderAction.Abandon;
import dev.baton.consensus.LeaderAction.AppendFence;
import dev.baton.consensus.LeaderAction.BeginTerm;
import dev.baton.consensus.LeaderAction.Build;
import dev.baton.consensus.LeaderAction.ChangeRole;
import dev.baton.consensus.LeaderAction.Launch;
import dev.baton.consensus.LeaderAction.Release;
import dev.baton.consensus.LeaderAction.Running;
import dev.baton.consensus.LeaderAction.ScheduleReadyCheck;
import dev.baton.consensus.LeaderAction.ScheduleRelaunch;
import dev.baton.consensus.LeaderAction.Start;
import dev.baton.consensus.LeaderAction.StopExecutor;
import dev.baton.consensus.LeaderAction.YieldLeadership;
import dev.baton.consensus.LeaderEvent.BecameLeader;
import dev.baton.consensus.LeaderEvent.Built;
import dev.baton.consensus.LeaderEvent.Failed;
import dev.baton.consensus.LeaderEvent.FenceApplied;
import dev.baton.consensus.LeaderEvent.LeaderReady;
import dev.baton.consensus.LeaderEvent.LeadershipChecked;
import dev.baton.consensus.LeaderEvent.ReadyCheck;
import dev.baton.consensus.LeaderEvent.RelaunchDue;
import dev.baton.consensus.LeaderEvent.Shutdown;
import dev.baton.consensus.LeaderEvent.Started;
import dev.baton.consensus.LeaderEvent.SteppedDown;
import dev.baton.consensus.LeaderEvent.YieldDone;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The leadership role transitions without Ratis or threads: tables of events and the actions and
 * role each one must produce.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class LeaderRoleMachineTest {
  private static final long BACKOFF_MS = 100;
  private static final long MAX_BACKOFF_MS = 400;
  private static final long GIVE_UP_MS = 1_000;
  private static final long PATIENCE_MS = 3_000;
  private static final Throwable CRASH = new IOException("store write failed");

  private final LeaderRoleMachine machine =
      new LeaderRoleMachine(
          Duration.ofMillis(BACKOFF_MS),
          Duration.ofMillis(MAX_BACKOFF_MS),
          Duration.ofMillis(GIVE_UP_MS),
          Duration.ofMillis(PATIENCE_MS));

  /** One event, the actions it must answer, in order, and the role after it. */
  private record Row(LeaderEvent event, NodeRole role, List<LeaderAction> actions) {}

  private static Row row(LeaderEvent event, NodeRole role, LeaderAction... actions) {
    return new Row(event, role, List.of(actions));
  }

  /** Ratis elects the node at {@code now}, applied up to {@code applied}: wait {@code watch}. */
  private static Row elected(long now, long applied, long watch) {
    return row(
        new BecameLeader(now, applied),
        LEADER_RECOVERING,
        new ChangeRole(LEADER_RECOVERING),
        new ScheduleReadyCheck(watch, PATIENCE_MS));
  }

  /** Term 5 becomes ready at {@code now} on a follower. */
  private static Row readyFromFollower(long now) {
    return row(
        new LeaderReady(5, now),
        LEADER_RECOVERING,
        new BeginTerm(5),
        new ChangeRole(LEADER_RECOVERING),
        new Launch(5));
  }

  private void play(Row... rows) {
    for (int i = 0; i < rows.length; i++) {
      Row r = rows[i];
      assertEquals(r.actions(), machine.on(r.event()), "row " + i + ": " + r.event());
      assertEquals(r.role(), machine.role(), "role after row " + i + ": " + r.event());
    }
  }

  /** Term 5 ready at time 100 and its first incarnation running at 130. */
  private void runTermFive() {
    play(
        elected(90, 40, 1),
        row(new LeaderReady(5, 100), LEADER_RECOVERING, new BeginTerm(5), new Launch(5)),
        row(new LeadershipChecked(5, true), LEADER_RECOVERING, new Build(5, 1, 0)),
        row(new Built(5, 1, 0), LEADER_RECOVERING, new Start(5, 1)),
        row(
            new Started(5, 1, 130),
            LEADER_RUNNING,
            new ChangeRole(LEADER_RUNNING),
            new Running(5, 1, 100)));
  }

  @Test
  void theFirstIncarnationOfATermIsBuiltWithoutAFenceAndRuns() {
    runTermFive();
    assertEquals(OptionalLong.of(5), machine.term());
    assertEquals(0, machine.epoch());
  }

  @Test
  void eventsOfAnEndedTermOrAnOlderIncarnationAreIgnored() {
    runTermFive();
    play(
        row(new LeadershipChecked(4, true), LEADER_RUNNING),
        row(new FenceApplied(4, 1, 3), LEADER_RUNNING),
        row(new Built(4, 1, 0), LEADER_RUNNING),
        row(new Failed(4, 1, CRASH, 200), LEADER_RUNNING),
        row(new RelaunchDue(4), LEADER_RUNNING),
        row(new RelaunchDue(5), LEADER_RUNNING), // nothing failed: no relaunch
        row(new Failed(5, 7, CRASH, 200), LEADER_RUNNING),
        row(new Started(5, 1, 210), LEADER_RUNNING), // a repeat of the start
        row(new LeaderReady(5, 220), LEADER_RUNNING), // Ratis readies a term once
        row(new ReadyCheck(1, 40, 90 + PATIENCE_MS), LEADER_RUNNING), // it became ready
        row(new Started(4, 9, 230), LEADER_RUNNING, new StopExecutor(4, 9)));
  }

  @Test
  void stepDownDuringARebuildAbandonsTheTermAndStopsAnExecutorThatStartsLate() {
    play(
        readyFromFollower(100),
        row(new LeadershipChecked(5, true), LEADER_RECOVERING, new Build(5, 1, 0)),
        row(new Built(5, 1, 0), LEADER_RECOVERING, new Start(5, 1)),
        row(
            new SteppedDown("leadership lost"),
            FOLLOWER,
            new ChangeRole(FOLLOWER),
            new Abandon(5, "leadership lost")),
        row(new Started(5, 1, 140), FOLLOWER, new StopExecutor(5, 1)),
        row(new Failed(5, 1, CRASH, 150), FOLLOWER),
        row(new SteppedDown("another node leads now"), FOLLOWER));
    assertEquals(OptionalLong.empty(), machine.term());
  }

  @Test
  void stepDownBeforeTheBuildEndsLeavesNothingToStart() {
    play(
        readyFromFollower(100),
        row(new LeadershipChecked(5, true), LEADER_RECOVERING, new Build(5, 1, 0)),
        row(
            new SteppedDown("another node leads now"),
            FOLLOWER,
            new ChangeRole(FOLLOWER),
            new Abandon(5, "another node leads now")),
        row(new Built(5, 1, 0), FOLLOWER));
  }

  @Test
  void aLaunchThatFindsLeadershipGoneStepsDown() {
    play(
        readyFromFollower(100),
        row(
            new LeadershipChecked(5, false),
            FOLLOWER,
            new ChangeRole(FOLLOWER),
            new Abandon(5, "not leader of term 5 any more")));
  }

  @Test
  void failedLaunchesAreRelaunchedBehindAFenceAtOnceThenWithADoublingBackoff() {
    play(
        readyFromFollower(0),
        row(new LeadershipChecked(5, true), LEADER_RECOVERING, new Build(5, 1, 0)),
        row(new Failed(5, 1, CRASH, 10), LEADER_RECOVERING, new ScheduleRelaunch(5, 0, 2, CRASH)),
        row(new Failed(5, 1, CRASH, 11), LEADER_RECOVERING), // one relaunch per failure
        row(new RelaunchDue(5), LEADER_RECOVERING, new Launch(5)),
        row(new LeadershipChecked(5, true), LEADER_RECOVERING, new AppendFence(5, 2)),
        row(
            new Failed(5, 2, CRASH, 20),
            LEADER_RECOVERING,
            new ScheduleRelaunch(5, BACKOFF_MS, 3, CRASH)),
        row(new RelaunchDue(5), LEADER_RECOVERING, new Launch(5)),
        row(new LeadershipChecked(5, true), LEADER_RECOVERING, new AppendFence(5, 3)),
        row(new FenceApplied(5, 3, 1), LEADER_RECOVERING, new Build(5, 3, 1)),
        row(
            new Failed(5, 3, CRASH, 30),
            LEADER_RECOVERING,
            new ScheduleRelaunch(5, 2 * BACKOFF_MS, 4, CRASH)),
        row(new RelaunchDue(5), LEADER_RECOVERING, new Launch(5)),
        row(new LeadershipChecked(5, true), LEADER_RECOVERING, new AppendFence(5, 4)),
        row(new FenceApplied(5, 3, 1), LEADER_RECOVERING), // the fence of an older incarnation
        row(new FenceApplied(5, 4, 2), LEADER_RECOVERING, new Build(5, 4, 2)),
        row(new Built(5, 4, 2), LEADER_RECOVERING, new Start(5, 4)),
        row(
            new Failed(5, 4, CRASH, 40),
            LEADER_RECOVERING,
            new Release(5, 4, false),
            new ScheduleRelaunch(5, MAX_BACKOFF_MS, 5, CRASH)),
        row(new Started(5, 4, 41), LEADER_RECOVERING), // it failed and was released
        row(new RelaunchDue(5), LEADER_RECOVERING, new Launch(5)),
        row(new LeadershipChecked(5, true), LEADER_RECOVERING, new AppendFence(5, 5)),
        row(new FenceApplied(5, 5, 3), LEADER_RECOVERING, new Build(5, 5, 3)),
        row(
            new Failed(5, 5, CRASH, 50),
            LEADER_RECOVERING,
            new ScheduleRelaunch(5, MAX_BACKOFF_MS, 6, CRASH)));
  }

  @Test
  void anExecutorThatStopsByItselfIsReleasedAndRelaunchedInANewEpochOfTheTerm() {
    runTermFive();
    play(
        row(
            new Failed(5, 1, CRASH, 500),
            LEADER_RECOVERING,
            new Release(5, 1, true),
            new ChangeRole(LEADER_RECOVERING),
            new ScheduleRelaunch(5, 0, 2, CRASH)),
        row(new RelaunchDue(5), LEADER_RECOVERING, new Launch(5)),
        row(new LeadershipChecked(5, true), LEADER_RECOVERING, new AppendFence(5, 2)),
        row(new FenceApplied(5, 2, 1), LEADER_RECOVERING, new Build(5, 2, 1)),
        row(new Built(5, 2, 1), LEADER_RECOVERING, new Start(5, 2)),
        row(
            new Started(5, 2, 560),
            LEADER_RUNNING,
            new ChangeRole(LEADER_RUNNING),
            new Running(5, 2, 500)));
    assertEquals(1, machine.epoch());
  }

  @Test
  void aLeaderThatCannotKeepAnExecutorRunningYieldsOnceAtATime() {
    play(readyFromFollower(0));
    long[] failures = {0, GIVE_UP_MS / 2};
    for (int i = 0; i < failures.length; i++) {
      failOnce(i + 1, failures[i], false);
    }
    failOnce(3, GIVE_UP_MS, true);
    failOnce(4, GIVE_UP_MS + 1, false); // the first request is still out
    play(row(new YieldDone(5), LEADER_RECOVERING));
    failOnce(5, GIVE_UP_MS + 2, true);
  }

  /** Launch incarnation {@code inc}, then fail it at {@code now}; expects a yield if asked. */
  private void failOnce(long inc, long now, boolean yields) {
    List<LeaderAction> launch = machine.on(new LeadershipChecked(5, true));
    assertEquals(1, launch.size(), "one launch step: " + launch);
    List<LeaderAction> answer = machine.on(new Failed(5, inc, CRASH, now));
    assertEquals(ScheduleRelaunch.class, answer.get(0).getClass(), answer.toString());
    assertEquals(
        yields
            ? List.of(answer.get(0), new YieldLeadership(5, "no executor of term 5 ran for PT1S"))
            : List.of(answer.get(0)),
        answer,
        "failure " + inc + " at " + now);
    assertEquals(List.of(new Launch(5)), machine.on(new RelaunchDue(5)));
  }

  @Test
  void anElectedNodeThatAppliesNothingForThePatienceYieldsAndAsksAgainAfterEachPatience() {
    String stuck = "elected and not ready, no entry applied for " + PATIENCE_MS + " ms:";
    play(
        elected(0, 40, 1),
        row(new BecameLeader(10, 40), LEADER_RECOVERING), // one wait per election
        row(new ReadyCheck(1, 40, 1_000), LEADER_RECOVERING, new ScheduleReadyCheck(1, 2_000)));
    List<LeaderAction> yielded = machine.on(new ReadyCheck(1, 40, PATIENCE_MS));
    assertEquals(2, yielded.size(), yielded.toString());
    YieldLeadership yield = (YieldLeadership) yielded.get(0);
    assertEquals(0, yield.term(), "no term is ready");
    assertTrue(yield.why().startsWith(stuck), yield.why());
    assertTrue(yield.why().endsWith("stays at 40"), yield.why());
    assertEquals(new ScheduleReadyCheck(1, PATIENCE_MS), yielded.get(1));
    play(
        // the yield was refused: the next patience without progress asks again
        row(new YieldDone(0), LEADER_RECOVERING),
        row(
            new ReadyCheck(1, 40, 2 * PATIENCE_MS),
            LEADER_RECOVERING,
            new YieldLeadership(0, stuck + " the applied index stays at 40"),
            new ScheduleReadyCheck(1, PATIENCE_MS)));
  }

  @Test
  void anElectedNodeThatStillAppliesItsBacklogWaitsForReadiness() {
    play(
        elected(0, 40, 1),
        row(
            new ReadyCheck(1, 900, PATIENCE_MS),
            LEADER_RECOVERING,
            new ScheduleReadyCheck(1, PATIENCE_MS)),
        row(
            new ReadyCheck(1, 901, 2 * PATIENCE_MS - 1),
            LEADER_RECOVERING,
            new ScheduleReadyCheck(1, PATIENCE_MS)),
        readyWhileRecovering(2 * PATIENCE_MS),
        row(new ReadyCheck(1, 901, 4 * PATIENCE_MS), LEADER_RECOVERING)); // ready: no yield
  }

  @Test
  void theChecksOfAnEarlierElectionAreIgnored() {
    play(
        elected(0, 40, 1),
        row(new SteppedDown("another node leads now"), FOLLOWER, new ChangeRole(FOLLOWER)),
        row(new ReadyCheck(1, 40, PATIENCE_MS), FOLLOWER),
        elected(PATIENCE_MS, 40, 2),
        row(new ReadyCheck(1, 40, 2 * PATIENCE_MS), LEADER_RECOVERING));
  }

  /** Term 5 becomes ready at {@code now} on a node already recovering. */
  private static Row readyWhileRecovering(long now) {
    return row(new LeaderReady(5, now), LEADER_RECOVERING, new BeginTerm(5), new Launch(5));
  }

  @Test
  void aNewTermAbandonsTheOlderOne() {
    runTermFive();
    play(
        row(
            new LeaderReady(6, 900),
            LEADER_RECOVERING,
            new Abandon(5, "term 6 began"),
            new BeginTerm(6),
            new ChangeRole(LEADER_RECOVERING),
            new Launch(6)),
        row(new Failed(5, 1, CRASH, 910), LEADER_RECOVERING),
        row(new LeadershipChecked(6, true), LEADER_RECOVERING, new Build(6, 2, 0)));
  }

  @Test
  void afterShutdownNoTermBegins() {
    runTermFive();
    play(
        row(new Shutdown(), FOLLOWER, new ChangeRole(FOLLOWER), new Abandon(5, "the node closes")),
        row(new BecameLeader(1_000, 50), FOLLOWER),
        row(new LeaderReady(6, 1_000), FOLLOWER),
        row(new LeadershipChecked(6, true), FOLLOWER));
  }
}
