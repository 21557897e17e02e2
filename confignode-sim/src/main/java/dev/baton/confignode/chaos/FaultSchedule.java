package dev.baton.confignode.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The faults of a chaos run, all derived from a seed, so a failing seed replays the same schedule.
 * Pure: no clock, no threads. ConfigNode faults never overlap by more than a minority of the nodes,
 * so the cluster keeps a majority throughout.
 */
public final class FaultSchedule {
  /** Shortest and longest pause between two faults. */
  static final long MIN_GAP_MILLIS = 1_500;

  static final long MAX_GAP_MILLIS = 4_000;

  /** Shortest and longest fault. */
  static final long MIN_FAULT_MILLIS = 1_000;

  static final long MAX_FAULT_MILLIS = 5_000;

  /** Commands a faulted DataNode fails before it is reset (or healed sooner). */
  public static final int DATANODE_FAILURES = 3;

  private final List<FaultEvent> events;

  private FaultSchedule(List<FaultEvent> events) {
    this.events = List.copyOf(events);
  }

  /**
   * The schedule of {@code seed} for a run of {@code millis} with {@code nodes} ConfigNodes and
   * {@code dataNodes} DataNodes (ids 1..dataNodes); every fault is healed by {@code millis}.
   */
  public static FaultSchedule generate(long seed, long millis, int nodes, int dataNodes) {
    if (nodes < 1 || dataNodes < 0 || millis < 0) {
      throw new IllegalArgumentException(
          "need nodes >= 1, dataNodes >= 0, millis >= 0: "
              + nodes
              + ", "
              + dataNodes
              + ", "
              + millis);
    }
    Random random = new Random(seed);
    int minority = (nodes - 1) / 2;
    FaultEvent.Action[] actions = FaultEvent.Action.values();
    List<FaultEvent> out = new ArrayList<>();
    long t = gap(random);
    while (t < millis) {
      FaultEvent.Action action = actions[random.nextInt(actions.length)];
      long duration =
          MIN_FAULT_MILLIS + (long) (random.nextDouble() * (MAX_FAULT_MILLIS - MIN_FAULT_MILLIS));
      duration = Math.min(duration, millis - t);
      int target =
          action == FaultEvent.Action.FAIL_DATANODE
              ? 1 + random.nextInt(Math.max(1, dataNodes))
              : random.nextInt(nodes);
      FaultEvent e = new FaultEvent(t, action, target, duration);
      boolean fits =
          action.hitsConfigNode()
              ? overlapping(out, t, true) < minority && !sameNodeBusy(out, e)
              : dataNodes > 0 && !sameDataNodeBusy(out, e);
      if (fits && duration > 0) {
        out.add(e);
      }
      t += gap(random);
    }
    return new FaultSchedule(out);
  }

  private static long gap(Random random) {
    return MIN_GAP_MILLIS + (long) (random.nextDouble() * (MAX_GAP_MILLIS - MIN_GAP_MILLIS));
  }

  /** ConfigNode faults still active at {@code t}. */
  static int overlapping(List<FaultEvent> events, long t, boolean configNodes) {
    int n = 0;
    for (FaultEvent e : events) {
      if (e.action().hitsConfigNode() == configNodes && e.atMillis() <= t && t < e.healAtMillis()) {
        n++;
      }
    }
    return n;
  }

  /**
   * A node fault while another is active would hit the same node if both name it, or if either aims
   * at "the leader" (who that is is known only when it runs): keep them apart.
   */
  private static boolean sameNodeBusy(List<FaultEvent> events, FaultEvent next) {
    for (FaultEvent e : events) {
      if (e.action().hitsConfigNode() && next.atMillis() < e.healAtMillis()) {
        boolean leaderAimed = aimsAtLeader(e) || aimsAtLeader(next);
        if (leaderAimed || e.target() == next.target()) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean sameDataNodeBusy(List<FaultEvent> events, FaultEvent next) {
    for (FaultEvent e : events) {
      if (!e.action().hitsConfigNode()
          && e.target() == next.target()
          && next.atMillis() < e.healAtMillis()) {
        return true;
      }
    }
    return false;
  }

  private static boolean aimsAtLeader(FaultEvent e) {
    return e.action() == FaultEvent.Action.KILL_LEADER
        || e.action() == FaultEvent.Action.PAUSE_LEADER;
  }

  public List<FaultEvent> events() {
    return events;
  }

  /** Most ConfigNodes faulted at one time. */
  public int maxConcurrentNodeFaults() {
    int max = 0;
    for (FaultEvent e : events) {
      max = Math.max(max, overlapping(events, e.atMillis(), true));
    }
    return max;
  }
}
