package dev.baton.consensus;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The role transitions of one node's leadership as a pure state machine: {@link #on} takes a {@link
 * LeaderEvent} and answers the {@link LeaderAction}s to carry out. No threads, no Ratis, no clock:
 * times come with the events. Not thread-safe; its glue ({@link LeadershipManager}) feeds it under
 * one lock.
 *
 * <p>The life of a term: {@link LeaderEvent.LeaderReady} begins it ({@link
 * NodeRole#LEADER_RECOVERING}) and asks for a launch; a launch checks leadership, then (every one
 * after the term's first) appends a fence that opens a new executor epoch, builds, starts ({@link
 * NodeRole#LEADER_RUNNING}). A failed incarnation is released (back to recovering) and relaunched
 * after a backoff ({@link RelaunchStreak}); once the streak is older than the give-up bound the
 * machine also asks to yield leadership. Stepping down abandons the term ({@link
 * NodeRole#FOLLOWER}).
 *
 * <p>Before its term is ready, an elected node waits for Ratis to apply the log up to the term's
 * first entry. While its applied index moves, the wait is progress (a long backlog); once it has
 * not moved for the unready patience, the node cannot become ready (its log or its majority is
 * stuck while it still holds leadership), and the machine asks to yield leadership, again after
 * each further patience without progress, so that the group elects a leader that can run.
 *
 * <p>Each launch gets an incarnation number, unique in this machine. An event about another term
 * than the current one, or about an incarnation that is not the current launch, or that does not
 * fit the launch's stage, is stale and ignored, with one exception: an executor that started after
 * its term ended is stopped. A second {@link LeaderEvent.LeaderReady} for the current term is
 * ignored (Ratis readies a term once).
 */
final class LeaderRoleMachine {

  /** Where the current launch of a term is. */
  enum Stage {
    /** Waiting for {@link LeaderEvent.LeadershipChecked} (or for a relaunch after a failure). */
    CHECKING,
    FENCING,
    BUILDING,
    /** Built and attached to the term; its executor starting. */
    STARTING,
    RUNNING,
    /** Failed; a relaunch is scheduled. */
    FAILED
  }

  /** The state of the current term. */
  private static final class Term {
    final long term;
    final RelaunchStreak streak;
    long recoveringSince;
    int launches;
    long incarnation;
    Stage stage = Stage.CHECKING;
    long epoch;
    boolean ran;

    Term(long term, long readyAt, RelaunchStreak streak) {
      this.term = term;
      this.recoveringSince = readyAt;
      this.streak = streak;
    }
  }

  private final Duration relaunchBackoff;
  private final Duration maxRelaunchBackoff;
  private final Duration relaunchGiveUp;
  private final Duration unreadyPatience;
  private NodeRole role = NodeRole.FOLLOWER;
  private Term current;
  private long incarnations;
  private boolean shutdown;

  /** Elected and not ready: since when the applied index last moved (-1 when not waiting). */
  private long stalledSince = -1;

  private long stalledApplied;

  /** Numbers each wait for readiness, so that the checks of an earlier wait are ignored. */
  private long readyWatch;

  /**
   * @param relaunchBackoff first pause before relaunching a failed incarnation (doubling)
   * @param maxRelaunchBackoff the longest pause
   * @param relaunchGiveUp how long without a running executor before leadership is yielded
   * @param unreadyPatience how long an elected node that is not ready may apply nothing before
   *     leadership is yielded
   */
  LeaderRoleMachine(
      Duration relaunchBackoff,
      Duration maxRelaunchBackoff,
      Duration relaunchGiveUp,
      Duration unreadyPatience) {
    this.relaunchBackoff = relaunchBackoff;
    this.maxRelaunchBackoff = maxRelaunchBackoff;
    this.relaunchGiveUp = relaunchGiveUp;
    this.unreadyPatience = unreadyPatience;
  }

  NodeRole role() {
    return role;
  }

  /** The term this node leads as the ready leader, if any. */
  OptionalLong term() {
    return current == null ? OptionalLong.empty() : OptionalLong.of(current.term);
  }

  /** The executor epoch of the current term's latest built incarnation (0 before any). */
  long epoch() {
    return current == null ? 0 : current.epoch;
  }

  /** The stage of the current term's launch; empty without a term. */
  Stage stage() {
    return current == null ? null : current.stage;
  }

  /** Steps the machine; returns the actions to carry out, in order. */
  List<LeaderAction> on(LeaderEvent event) {
    List<LeaderAction> out = new ArrayList<>();
    if (event instanceof LeaderEvent.BecameLeader e) {
      becameLeader(e, out);
    } else if (event instanceof LeaderEvent.ReadyCheck e) {
      readyCheck(e, out);
    } else if (event instanceof LeaderEvent.LeaderReady e) {
      ready(e, out);
    } else if (event instanceof LeaderEvent.SteppedDown e) {
      stepDown(e.why(), out);
    } else if (event instanceof LeaderEvent.LeadershipChecked e) {
      checked(e, out);
    } else if (event instanceof LeaderEvent.FenceApplied e) {
      if (isLaunch(e.term(), e.incarnation(), Stage.FENCING)) {
        current.stage = Stage.BUILDING;
        out.add(new LeaderAction.Build(e.term(), e.incarnation(), e.epoch()));
      }
    } else if (event instanceof LeaderEvent.Built e) {
      if (isLaunch(e.term(), e.incarnation(), Stage.BUILDING)) {
        current.stage = Stage.STARTING;
        current.epoch = e.epoch();
        out.add(new LeaderAction.Start(e.term(), e.incarnation()));
      }
    } else if (event instanceof LeaderEvent.Started e) {
      started(e, out);
    } else if (event instanceof LeaderEvent.Failed e) {
      failed(e, out);
    } else if (event instanceof LeaderEvent.RelaunchDue e) {
      if (isCurrent(e.term()) && current.stage == Stage.FAILED) {
        current.stage = Stage.CHECKING;
        out.add(new LeaderAction.Launch(e.term()));
      }
    } else if (event instanceof LeaderEvent.YieldDone e) {
      if (isCurrent(e.term())) {
        current.streak.handOverDone();
      }
    } else if (event instanceof LeaderEvent.Shutdown) {
      shutdown = true;
      stepDown("the node closes", out);
    } else {
      throw new IllegalArgumentException("unknown leadership event " + event);
    }
    return out;
  }

  private void becameLeader(LeaderEvent.BecameLeader e, List<LeaderAction> out) {
    if (current != null || shutdown) {
      return;
    }
    changeRole(NodeRole.LEADER_RECOVERING, out);
    if (stalledSince < 0) {
      stalledSince = e.now();
      stalledApplied = e.appliedIndex();
      out.add(new LeaderAction.ScheduleReadyCheck(++readyWatch, unreadyPatience.toMillis()));
    }
  }

  private void readyCheck(LeaderEvent.ReadyCheck e, List<LeaderAction> out) {
    if (e.watch() != readyWatch || stalledSince < 0 || current != null || shutdown) {
      return;
    }
    if (e.appliedIndex() > stalledApplied) {
      stalledApplied = e.appliedIndex();
      stalledSince = e.now();
    } else if (e.now() - stalledSince >= unreadyPatience.toMillis()) {
      out.add(
          new LeaderAction.YieldLeadership(
              0,
              "elected and not ready, no entry applied for "
                  + (e.now() - stalledSince)
                  + " ms: the applied index stays at "
                  + e.appliedIndex()));
      stalledSince = e.now();
    }
    long waited = e.now() - stalledSince;
    out.add(
        new LeaderAction.ScheduleReadyCheck(
            readyWatch, Math.max(1, unreadyPatience.toMillis() - waited)));
  }

  private void ready(LeaderEvent.LeaderReady e, List<LeaderAction> out) {
    if (shutdown || isCurrent(e.term())) {
      return;
    }
    stalledSince = -1;
    Term previous = current;
    current =
        new Term(
            e.term(),
            e.now(),
            new RelaunchStreak(relaunchBackoff, maxRelaunchBackoff, relaunchGiveUp));
    if (previous != null) {
      out.add(new LeaderAction.Abandon(previous.term, "term " + e.term() + " began"));
    }
    out.add(new LeaderAction.BeginTerm(e.term()));
    changeRole(NodeRole.LEADER_RECOVERING, out);
    out.add(new LeaderAction.Launch(e.term()));
  }

  private void checked(LeaderEvent.LeadershipChecked e, List<LeaderAction> out) {
    if (!isCurrent(e.term()) || current.stage != Stage.CHECKING) {
      return;
    }
    if (!e.leader()) {
      stepDown("not leader of term " + e.term() + " any more", out);
      return;
    }
    current.incarnation = ++incarnations;
    if (current.launches++ > 0) {
      current.stage = Stage.FENCING;
      out.add(new LeaderAction.AppendFence(e.term(), current.incarnation));
    } else {
      current.stage = Stage.BUILDING;
      out.add(new LeaderAction.Build(e.term(), current.incarnation, 0));
    }
  }

  private void started(LeaderEvent.Started e, List<LeaderAction> out) {
    if (isLaunch(e.term(), e.incarnation(), Stage.STARTING)) {
      current.stage = Stage.RUNNING;
      current.ran = true;
      current.streak.running(e.now());
      changeRole(NodeRole.LEADER_RUNNING, out);
      out.add(new LeaderAction.Running(e.term(), e.incarnation(), current.recoveringSince));
    } else if (!isCurrent(e.term())) {
      out.add(new LeaderAction.StopExecutor(e.term(), e.incarnation()));
    }
    // else it failed meanwhile and was released: it stopped by itself
  }

  private void failed(LeaderEvent.Failed e, List<LeaderAction> out) {
    if (!isCurrent(e.term())
        || current.incarnation != e.incarnation()
        || current.stage == Stage.FAILED
        || current.stage == Stage.CHECKING) {
      return;
    }
    if (current.stage == Stage.STARTING || current.stage == Stage.RUNNING) {
      boolean newRecovery = current.ran;
      if (newRecovery) {
        current.recoveringSince = e.now();
        current.ran = false;
      }
      out.add(new LeaderAction.Release(e.term(), e.incarnation(), newRecovery));
      changeRole(NodeRole.LEADER_RECOVERING, out);
    }
    current.stage = Stage.FAILED;
    RelaunchStreak.Next next = current.streak.failed(e.now());
    out.add(
        new LeaderAction.ScheduleRelaunch(e.term(), next.delayMillis(), next.attempt(), e.cause()));
    if (next.handOver()) {
      out.add(
          new LeaderAction.YieldLeadership(
              e.term(), "no executor of term " + e.term() + " ran for " + relaunchGiveUp));
    }
  }

  private void stepDown(String why, List<LeaderAction> out) {
    Term t = current;
    current = null;
    stalledSince = -1;
    changeRole(NodeRole.FOLLOWER, out);
    if (t != null) {
      out.add(new LeaderAction.Abandon(t.term, why));
    }
  }

  private boolean isCurrent(long term) {
    return current != null && current.term == term;
  }

  private boolean isLaunch(long term, long incarnation, Stage stage) {
    return isCurrent(term) && current.incarnation == incarnation && current.stage == stage;
  }

  private void changeRole(NodeRole next, List<LeaderAction> out) {
    if (role != next) {
      role = next;
      out.add(new LeaderAction.ChangeRole(next));
    }
  }
}
